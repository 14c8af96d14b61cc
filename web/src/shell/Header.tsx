import { useId, useState } from 'react';
import { NavLink, useLocation } from 'react-router-dom';
import type { Project, User } from '../../../src/api.js';
import { useSignOut } from '../api/auth.js';
import { SelectField } from '../components/SelectField.js';

interface HeaderProps {
  user: User;
  projects: readonly Project[];
  project: Project | null;
  onChooseProject: (id: string) => void;
  /** Absent when the user may not create projects on this instance. */
  onCreateProject?: () => void;
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
          {onCreateProject && (
            <button type="button" className="button" onClick={onCreateProject}>
              New project
            </button>
          )}
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
      {navItems.length > 0 && <MainNav items={navItems} />}
    </header>
  );
}

/**
 * The pages of a project. Wide, a row of links that wraps when there are many; on a phone, a menu
 * button that shows the current page and opens the links as a grid, closing again on navigation.
 */
function MainNav({ items }: { items: readonly { to: string; label: string }[] }) {
  const listId = useId();
  const { pathname } = useLocation();
  // Open for the page it was opened on: moving to another page closes it without an effect.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const current = items.find((item) => pathname === item.to || pathname.startsWith(`${item.to}/`));
  return (
    <nav aria-label="Main" className={`app-nav${open ? ' is-open' : ''}`}>
      <button
        type="button"
        className="button app-nav-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpenOn(open ? null : pathname)}
      >
        <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
          <path d="M2 4h12M2 8h12M2 12h12" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round" />
        </svg>
        Menu
        {current && <span className="app-nav-current">{current.label}</span>}
      </button>
      <ul id={listId}>
        {items.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} onClick={() => setOpenOn(null)}>
              {item.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
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
  return (
    <SelectField
      className="project-switcher"
      label="Project"
      value={project.id}
      options={projects.map((p) => ({ value: p.id, label: `${p.name}${p.disabled ? ' (disabled)' : ''}` }))}
      onChange={onChoose}
    />
  );
}
