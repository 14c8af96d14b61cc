import { type FormEvent, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { SignInMethods } from '../../../src/api.js';
import {
  forgetSignOut,
  isChallenge,
  signedOutHere,
  useSecondFactor,
  useSignIn,
  useSignInMethods,
} from '../api/auth.js';
import { ApiError, fieldMessages, formMessage } from '../api/errors.js';
import { Alert, RetryAlert } from '../components/Alert.js';
import { Field } from '../components/Field.js';
import { AuthLayout } from './AuthLayout.js';
import { ssoFailureMessage } from './sso-messages.js';

const TITLE = 'Sign in to Postbox';

/**
 * Single sign-on through the provider, and email and password (unless the instance is "SSO only",
 * where the page goes to the provider by itself); then, for an account with two-factor sign-in, a
 * code or a recovery code. The provider's refusals come back as `?sso_error=`, and an account with
 * a second factor as `?sign_in=second-factor`.
 */
export function SignInPage() {
  const [params, setParams] = useSearchParams();
  const [arrival] = useState(() => ({
    ssoError: params.get('sso_error'),
    secondFactor: params.get('sign_in') === 'second-factor',
  }));
  const [secondStep, setSecondStep] = useState(arrival.secondFactor);
  const methods = useSignInMethods();
  // Read once: the address goes back to the plain page, so a reload starts afresh.
  // biome-ignore lint/correctness/useExhaustiveDependencies: on arrival only
  useEffect(() => {
    if (params.has('sso_error') || params.has('sign_in')) setParams({}, { replace: true });
  }, []);

  if (secondStep) return <SecondFactorStep onRestart={() => setSecondStep(false)} />;
  if (methods.isPending) {
    return (
      <AuthLayout title={TITLE}>
        <p aria-busy="true">Loading…</p>
      </AuthLayout>
    );
  }
  if (methods.isError) {
    return (
      <AuthLayout title={TITLE}>
        <RetryAlert error={methods.error} onRetry={() => methods.refetch()} />
      </AuthLayout>
    );
  }
  const { sso, passwordSignIn } = methods.data;
  if (sso && !passwordSignIn && !arrival.ssoError && !signedOutHere()) return <GoToProvider sso={sso} />;
  const refused = ssoFailureMessage(arrival.ssoError, sso?.providerName ?? 'The provider');
  return (
    <AuthLayout title={TITLE}>
      {refused && <Alert>{refused}</Alert>}
      {sso && (
        <a
          className={`button sso-button${passwordSignIn ? '' : ' button-primary'}`}
          href={sso.startUrl}
          onClick={forgetSignOut}
        >
          Sign in with {sso.providerName}
        </a>
      )}
      {sso && passwordSignIn && <p className="auth-divider">or with your email and password</p>}
      {passwordSignIn && <PasswordForm onChallenge={() => setSecondStep(true)} />}
    </AuthLayout>
  );
}

/** "SSO only": the provider is the only way in, so the page goes there at once. */
function GoToProvider({ sso }: { sso: NonNullable<SignInMethods['sso']> }) {
  useEffect(() => window.location.assign(sso.startUrl), [sso.startUrl]);
  return (
    <AuthLayout title={TITLE}>
      <p aria-busy="true">
        Taking you to {sso.providerName}… If nothing happens, <a href={sso.startUrl}>continue to {sso.providerName}</a>.
      </p>
    </AuthLayout>
  );
}

function PasswordForm({ onChallenge }: { onChallenge: () => void }) {
  const signIn = useSignIn();
  const fields = signIn.error instanceof ApiError ? fieldMessages(signIn.error.fieldErrors) : {};
  const message = formMessage(signIn.error, ['email', 'password']);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate(
      { email: String(form.get('email') ?? '').trim(), password: String(form.get('password') ?? '') },
      { onSuccess: (result) => isChallenge(result) && onChallenge() },
    );
  };

  return (
    <form className="stack" onSubmit={submit} noValidate>
      {message && <Alert>{message}</Alert>}
      <Field label="Email" name="email" type="email" autoComplete="username" required error={fields.email} />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        error={fields.password}
      />
      <button type="submit" className="button button-primary" disabled={signIn.isPending}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function SecondFactorStep({ onRestart }: { onRestart: () => void }) {
  const verify = useSecondFactor();
  const [recovery, setRecovery] = useState(false);
  const field = recovery ? 'recoveryCode' : 'code';
  const fields = verify.error instanceof ApiError ? fieldMessages(verify.error.fieldErrors) : {};
  const expired = verify.error instanceof ApiError && verify.error.code === 'SIGN_IN_EXPIRED';
  const message = formMessage(verify.error, [field]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get(field) ?? '').trim();
    verify.mutate(recovery ? { recoveryCode: value } : { code: value });
  };

  return (
    <AuthLayout title="Two-factor sign-in">
      <form className="stack" onSubmit={submit} noValidate key={field}>
        {message && !fields[field] && (
          <Alert
            action={
              expired ? (
                <button type="button" className="button button-small" onClick={onRestart}>
                  Start again
                </button>
              ) : undefined
            }
          >
            {message}
          </Alert>
        )}
        {recovery ? (
          <Field
            label="Recovery code"
            name="recoveryCode"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            required
            hint="One of the ten codes you saved when you turned on two-factor sign-in, such as ABCDE-23456. Each works once."
            error={fields.recoveryCode}
          />
        ) : (
          <Field
            label="Code from your authenticator app"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9 ]*"
            maxLength={7}
            required
            autoFocus
            hint="The six digits the app shows for Postbox now."
            error={fields.code}
          />
        )}
        <button type="submit" className="button button-primary" disabled={verify.isPending}>
          {verify.isPending ? 'Checking…' : 'Verify'}
        </button>
        <p className="auth-alternatives">
          <button
            type="button"
            className="button-link"
            onClick={() => {
              verify.reset();
              setRecovery(!recovery);
            }}
          >
            {recovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
          </button>{' '}
          ·{' '}
          <button type="button" className="button-link" onClick={onRestart}>
            Sign in as someone else
          </button>
        </p>
      </form>
    </AuthLayout>
  );
}
