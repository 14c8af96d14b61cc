import { lazy, Suspense } from 'react';
import { useMatch } from 'react-router-dom';
import { useMe, useSetupStatus } from '../api/auth.js';
import { RetryAlert } from '../components/Alert.js';
import { AuthLayout } from './AuthLayout.js';
import { Dashboard } from './Dashboard.js';
import { SetupPage } from './SetupPage.js';
import { SignInPage } from './SignInPage.js';

const InvitePage = lazy(() => import('../pages/invite/InvitePage.js'));
const EnrolRequiredPage = lazy(() => import('../pages/account/EnrolRequiredPage.js'));

/** First run → create the owner; signed out → sign in; a second factor required → enrol; otherwise the dashboard. */
export function AuthGate() {
  const setup = useSetupStatus();
  const me = useMe();
  // An invitation link opens its own page, signed in or not: it signs in or creates the account itself.
  const invite = useMatch('/invite/:token');
  if (invite?.params.token) {
    return (
      <Suspense fallback={<FullPageLoading />}>
        <InvitePage token={invite.params.token} />
      </Suspense>
    );
  }

  if (setup.isPending || me.isPending) return <FullPageLoading />;
  if (setup.isError || me.isError) {
    return (
      <AuthLayout title="Postbox is unavailable">
        <RetryAlert error={setup.error ?? me.error} onRetry={() => Promise.all([setup.refetch(), me.refetch()])} />
      </AuthLayout>
    );
  }
  if (setup.data.required) return <SetupPage />;
  if (!me.data) return <SignInPage />;
  // A project of theirs requires a second factor they have not set up: that comes first.
  if (me.data.twoFactorRequired && !me.data.twoFactorEnabled) {
    return (
      <Suspense fallback={<FullPageLoading />}>
        <EnrolRequiredPage me={me.data} />
      </Suspense>
    );
  }
  return <Dashboard user={me.data} />;
}

function FullPageLoading() {
  return (
    <main className="full-page-loading" aria-busy="true">
      <p>Loading…</p>
    </main>
  );
}
