import { Link } from 'react-router-dom';
import { usePageTitle } from './usePageTitle.js';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <section className="empty-state">
      <h1>Page not found</h1>
      <p>
        <Link to="/contacts">Go to contacts</Link>
      </p>
    </section>
  );
}
