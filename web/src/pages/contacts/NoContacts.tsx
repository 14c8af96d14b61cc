import { EmptyState } from '../../components/EmptyState.js';

export function NoContacts({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  if (filtered) {
    return (
      <EmptyState title="No contacts match">
        <p className="muted">Try another search or subscription filter.</p>
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No contacts yet">
      <p className="muted">
        Contacts appear when you send to an address, track an event for it (<code>POST /v1/track</code>), or add them
        with <code>POST /contacts</code>.
      </p>
    </EmptyState>
  );
}
