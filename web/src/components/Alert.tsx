import type { ReactNode } from 'react';

/** A message announced when it appears; for errors of a whole form or page. */
export function Alert({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="alert" role="alert">
      <p>{children}</p>
      {action}
    </div>
  );
}
