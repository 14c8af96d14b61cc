import { useMe } from '../../api/auth.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { PasswordCard } from './PasswordCard.js';
import { SessionsCard } from './SessionsCard.js';
import { TwoFactorCard } from './TwoFactorCard.js';
import './account.css';

/** The signed-in person's own account, across projects: its security. */
export default function AccountPage() {
  usePageTitle('Account');
  const me = useMe().data;
  return (
    <section aria-labelledby="account-title" className="stack account">
      <div className="page-heading">
        <h1 id="account-title">Account</h1>
        <p className="muted">{me?.email}: how you sign in, and where you are signed in. For every project.</p>
      </div>
      <h2 className="account-section">Security</h2>
      <TwoFactorCard />
      <SessionsCard />
      <PasswordCard />
    </section>
  );
}
