import { useContext, useEffect, useId, useRef } from 'react';
import { NavLink } from 'react-router-dom';
import { roleAtLeast } from '../../../src/domain/roles.js';
import { CurrentProjectContext } from './current-project.js';
import { NAV_GROUPS } from './navigation.js';

/**
 * The project's pages in their groups. NavLink marks the page the address is on or below with
 * aria-current="page"; each link's one-line description is its tooltip.
 */
export function MainNav({ onNavigate }: { onNavigate?: () => void }) {
  const id = useId();
  const project = useContext(CurrentProjectContext);
  // A page for admins is left out for members (the API would refuse them anyway).
  const shown = (role?: 'admin' | 'owner') => !role || !project || roleAtLeast(project.role, role);
  return (
    <nav aria-label="Main" className="main-nav">
      {NAV_GROUPS.map((group, index) => {
        const headingId = `${id}-${index}`;
        return (
          <div key={group.heading ?? index} className="main-nav-group">
            {group.heading && (
              <p id={headingId} className="main-nav-heading">
                {group.heading}
              </p>
            )}
            <ul aria-labelledby={group.heading ? headingId : undefined}>
              {group.items
                .filter((item) => shown(item.role))
                .map((item) => (
                  <li key={item.to}>
                    <NavLink to={item.to} title={item.description} onClick={onNavigate}>
                      {item.label}
                    </NavLink>
                  </li>
                ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}

/**
 * Below 768 px the sidebar gives way to a drawer: a modal dialog that keeps focus inside, closes on
 * Escape, on a click beside it or on following a link, and gives focus back to the button that
 * opened it.
 */
export function NavDrawer({ onClose, returnFocusTo }: { onClose: () => void; returnFocusTo: HTMLElement | null }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
    return () => returnFocusTo?.focus();
  }, [returnFocusTo]);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard closes it with Escape (the cancel event); the click is on the backdrop
    <dialog
      ref={dialog}
      className="nav-drawer"
      aria-label="Menu"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === dialog.current) onClose();
      }}
    >
      <div className="nav-drawer-head">
        <span className="brand">Postbox</span>
        <button type="button" className="button button-small" onClick={onClose}>
          Close
        </button>
      </div>
      <MainNav onNavigate={onClose} />
    </dialog>
  );
}
