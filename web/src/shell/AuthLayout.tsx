import type { ReactNode } from 'react';
import { usePageTitle } from './usePageTitle.js';

/** The centred card of the sign-in and first-run pages. */
export function AuthLayout({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  usePageTitle(title);
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand" aria-hidden="true">
          Postbox
        </p>
        <h1>{title}</h1>
        {intro}
        {children}
      </div>
    </main>
  );
}
