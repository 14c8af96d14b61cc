import type { ReactNode } from 'react';
import { errorMessage } from '../api/errors.js';

/** A message announced when it appears; for errors of a whole form or page. */
export function Alert({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="alert" role="alert">
      <p>{children}</p>
      {action}
    </div>
  );
}

/** Why something failed to load, with the button that loads it again; inside a card the button is small. */
export function RetryAlert({
  error,
  onRetry,
  small = false,
}: {
  error: unknown;
  onRetry: () => void;
  small?: boolean;
}) {
  return (
    <Alert
      action={
        <button type="button" className={small ? 'button button-small' : 'button'} onClick={onRetry}>
          Try again
        </button>
      }
    >
      {errorMessage(error)}
    </Alert>
  );
}
