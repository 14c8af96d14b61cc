/**
 * Cancel, then the button that does the dialog's work, which says what it is doing while it runs.
 * Both wait while it runs, so a change is neither doubled nor left behind unseen.
 */
export function DialogActions({
  busy,
  label,
  busyLabel,
  tone = 'primary',
  onConfirm,
  onCancel,
  cancelLabel = 'Cancel',
}: {
  busy: boolean;
  label: string;
  busyLabel: string;
  tone?: 'primary' | 'danger';
  /** Without it the button submits the dialog's form. */
  onConfirm?: () => void;
  onCancel: () => void;
  cancelLabel?: string;
}) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button" onClick={onCancel} disabled={busy}>
        {cancelLabel}
      </button>
      <button
        type={onConfirm ? 'button' : 'submit'}
        className={`button button-${tone}`}
        disabled={busy}
        onClick={onConfirm}
      >
        {busy ? busyLabel : label}
      </button>
    </div>
  );
}

/** Closes a dialog whose work is done, such as one showing a secret for the only time. */
export function DoneAction({ onDone }: { onDone: () => void }) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button button-primary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
