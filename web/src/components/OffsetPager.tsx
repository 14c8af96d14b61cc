const numberFormat = new Intl.NumberFormat();

/** Previous and next through a numbered list, with where the reader is ("Page 2 of 7"). */
export function OffsetPager({
  label,
  page,
  totalPages,
  busy,
  onPage,
}: {
  /** Names the pager for screen readers: "Pages of suppressions". */
  label: string;
  page: number;
  totalPages: number;
  busy: boolean;
  onPage: (page: number) => void;
}) {
  if (totalPages <= 1 && page <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button" disabled={page <= 1 || busy} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span className="muted">
        Page {numberFormat.format(page)} of {numberFormat.format(Math.max(totalPages, 1))}
      </span>
      <button type="button" className="button" disabled={page >= totalPages || busy} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
