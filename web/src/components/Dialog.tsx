import { type ReactNode, useEffect, useId, useRef } from 'react';

interface DialogProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Set while a request runs, so Escape does not close a dialog mid-change. */
  busy?: boolean;
  /** Added to `dialog`, for a dialog that needs more room (`dialog-wide`). */
  className?: string;
}

/**
 * A modal on the browser's own <dialog>: showModal() makes the rest of the page inert (focus stays
 * inside), Escape fires `cancel`, and focus returns to the opener on close. Its content is mounted
 * only while it is open, so a form in it starts afresh at each opening.
 */
export function Dialog({ open, title, onClose, children, busy = false, className }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      className={className ? `dialog ${className}` : 'dialog'}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      {open && (
        <>
          <h2 id={titleId} className="dialog-title">
            {title}
          </h2>
          {children}
        </>
      )}
    </dialog>
  );
}
