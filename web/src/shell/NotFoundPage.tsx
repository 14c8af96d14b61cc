import { Link } from 'react-router-dom';
import { NAV_GROUPS } from './navigation.js';
import { useOpenPalette } from './palette/open-palette.js';
import { usePageTitle } from './usePageTitle.js';

/** An address the dashboard has no page for: the palette to search, and the pages in their groups. */
export function NotFoundPage() {
  usePageTitle('Page not found');
  const openPalette = useOpenPalette();
  return (
    <section className="empty-state not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p className="muted">Nothing is at this address. Search for a page, contact, template or campaign:</p>
      <button type="button" className="button button-primary" onClick={openPalette}>
        Search <kbd>Ctrl K</kbd>
      </button>
      <nav aria-label="Pages by group" className="not-found-groups">
        {NAV_GROUPS.map((group) => (
          <div key={group.items[0]!.to}>
            <h2 className="small muted">{group.heading ?? 'Start'}</h2>
            <ul>
              {group.items.map((item) => (
                <li key={item.to}>
                  <Link to={item.to}>{item.label}</Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
    </section>
  );
}
