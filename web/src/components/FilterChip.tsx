import type { ReactNode } from 'react';

/** A filter that came with the address (a contact, a campaign), with the button that drops it. */
export function FilterChip({
  children,
  removeLabel,
  onRemove,
}: {
  children: ReactNode;
  /** What removing shows, for screen readers: "Show emails of every campaign". */
  removeLabel: string;
  onRemove: () => void;
}) {
  return (
    <p className="filter-chip">
      <span>{children}</span>
      <button type="button" className="button button-small" aria-label={removeLabel} onClick={onRemove}>
        Remove
      </button>
    </p>
  );
}
