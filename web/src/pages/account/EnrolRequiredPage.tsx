import type { Me } from '../../../../src/api.js';
import { useSignOut } from '../../api/auth.js';
import { useRefreshMe } from '../../api/security.js';
import { AuthLayout } from '../../shell/AuthLayout.js';
import { TwoFactorEnrolment } from './TwoFactorEnrolment.js';
import './account.css';

/**
 * At sign-in, for a member of a project that requires two-factor sign-in who has not turned it on:
 * they enrol before anything else (the project refuses them until they do).
 */
export default function EnrolRequiredPage({ me }: { me: Me }) {
  const refreshMe = useRefreshMe();
  const signOut = useSignOut();
  return (
    <AuthLayout title="Turn on two-factor sign-in">
      <div className="stack">
        <p>
          A project you belong to requires two-factor sign-in. Set it up for {me.email} to continue: from now on,
          signing in takes your password and a code from an app on your phone.
        </p>
        <TwoFactorEnrolment onDone={() => void refreshMe()} />
        <p>
          <button type="button" className="button-link" onClick={() => signOut.mutate()}>
            Sign out instead
          </button>
        </p>
      </div>
    </AuthLayout>
  );
}
