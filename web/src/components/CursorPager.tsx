import { type ListPosition, nextPage, type Paged, pageNumber, previousPage } from './cursor-trail.js';
/**
 * Previous and next through a list paged by cursor. The page's number is known from the trail of
 * cursors kept in the history; a page reached another way is a "Later page".
 */
export function CursorPager({
  label,
  page,
  busy,
  onPrevious,
  next,
  onNext,
}: {
  /** Names the pager for screen readers: "Pages of emails". */
  label: string;
  page: number | null;
  busy: boolean;
  /** Absent on the first page. */
  onPrevious?: () => void;
  /** The cursor of the next page; null on the last. */
  next: string | null;
  onNext: (cursor: string) => void;
}) {
  if (!onPrevious && !next) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button" disabled={!onPrevious || busy} onClick={onPrevious}>
        Previous
      </button>
      <span className="muted">{page === null ? 'Later page' : `Page ${page}`}</span>
      <button type="button" className="button" disabled={!next || busy} onClick={() => next && onNext(next)}>
        Next
      </button>
    </nav>
  );
}

/** The pager of a list whose place is kept in the URL and the history's trail (`cursor-trail.ts`). */
export function TrailPager<F extends Paged>({
  label,
  position: { filters, trail },
  busy,
  next,
  onTurn,
}: {
  label: string;
  position: ListPosition<F>;
  busy: boolean;
  /** The cursor of the next page; null on the last. */
  next: string | null;
  onTurn: (to: ListPosition<F>) => void;
}) {
  return (
    <CursorPager
      label={label}
      page={pageNumber(filters.cursor, trail)}
      busy={busy}
      onPrevious={filters.cursor ? () => onTurn(previousPage(filters, trail)) : undefined}
      next={next}
      onNext={(cursor) => onTurn(nextPage(filters, trail, cursor))}
    />
  );
}
