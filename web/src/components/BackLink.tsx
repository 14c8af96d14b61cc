import { Link } from 'react-router-dom';

/** The way up from a page about one thing to the list it belongs to. */
export function BackLink({ to, children }: { to: string; children: string }) {
  return (
    <p>
      <Link to={to} className="back-link">
        <span aria-hidden="true">←</span> {children}
      </Link>
    </p>
  );
}
