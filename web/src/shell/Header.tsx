import { useId } from 'react';
import { NavLink } from 'react-router-dom';
import type { Project, User } from '../../../src/api.js';
import { useSignOut } from '../api/auth.js';

interface HeaderProps {
  user: User;
  projects: readonly Project[];
  project: Project | null;
  onChooseProject: (id: string) => void;
  onCreateProject: () => void;
  navItems: readonly { to: string; label: string }[];
}

export function Header({ user, projects, project, onChooseProject, onCreateProject, navItems }: HeaderProps) {
  const signOut = useSignOut();
  return (
    <header className="app-header">
      <div className="app-header-row">
        <span className="brand">Postbox</span>
        <div className="project-tools">
          {project && <ProjectSwitcher projects={projects} project={project} onChoose={onChooseProject} />}
          <button type="button" className="button" onClick={onCreateProject}>
            New project
          </button>
        </div>
        <div className="account-tools">
          <span className="header-user muted" title={user.email}>
            {user.email}
          </span>
          <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </div>
      {navItems.length > 0 && (
        <nav aria-label="Main" className="app-nav">
          <ul>
            {navItems.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to}>{item.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </header>
  );
}

function ProjectSwitcher({
  projects,
  project,
  onChoose,
}: {
  projects: readonly Project[];
  project: Project;
  onChoose: (id: string) => void;
}) {
  const id = useId();
  return (
    <div className="project-switcher">
      <label htmlFor={id}>Project</label>
      <select id={id} value={project.id} onChange={(e) => onChoose(e.target.value)}>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
            {p.disabled ? ' (disabled)' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}
