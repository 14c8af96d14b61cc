import { Link, useLocation } from 'react-router-dom';
import type { Project, User } from '../../../src/api.js';
import { useSignOut } from '../api/auth.js';
import { SelectField } from '../components/SelectField.js';
import { currentNavItem } from './navigation.js';

interface HeaderProps {
  user: User;
  projects: readonly Project[];
  project: Project | null;
  onChooseProject: (id: string) => void;
  /** Absent when the user may not create projects on this instance. */
  onCreateProject?: () => void;
  /** The drawer of pages: whether it is open, and how to open it (absent without a project). */
  menu: { open: boolean; onOpen: (button: HTMLButtonElement) => void } | null;
}

export function Header({ user, projects, project, onChooseProject, onCreateProject, menu }: HeaderProps) {
  const signOut = useSignOut();
  return (
    <header className="app-header">
      <div className="app-header-row">
        {menu && <MenuButton {...menu} />}
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
          <Link className="header-user" to="/account" title={`Your account: ${user.email}`}>
            {user.email}
          </Link>
          <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}

/** Below 768 px, where the sidebar hides, the button that opens the pages in a drawer; it names the current page. */
function MenuButton({ open, onOpen }: { open: boolean; onOpen: (button: HTMLButtonElement) => void }) {
  const { pathname } = useLocation();
  const current = currentNavItem(pathname);
  return (
    <button
      type="button"
      className="button menu-button"
      aria-haspopup="dialog"
      aria-expanded={open}
      onClick={(event) => onOpen(event.currentTarget)}
    >
      <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
        <path d="M2 4h12M2 8h12M2 12h12" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round" />
      </svg>
      Menu
      {current && <span className="menu-button-current">{current.label}</span>}
    </button>
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
