import { type FormEvent, useState } from 'react';
import { isChallenge, useSecondFactor, useSignIn } from '../api/auth.js';
import { ApiError, fieldMessages, formMessage } from '../api/errors.js';
import { Alert } from '../components/Alert.js';
import { Field } from '../components/Field.js';
import { AuthLayout } from './AuthLayout.js';

/** Email and password; then, for an account with two-factor sign-in, a code or a recovery code. */
export function SignInPage() {
  const signIn = useSignIn();
  const [secondStep, setSecondStep] = useState(false);
  const fields = signIn.error instanceof ApiError ? fieldMessages(signIn.error.fieldErrors) : {};

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate(
      { email: String(form.get('email') ?? '').trim(), password: String(form.get('password') ?? '') },
      { onSuccess: (result) => setSecondStep(isChallenge(result)) },
    );
  };

  if (secondStep) {
    return (
      <SecondFactorStep
        onRestart={() => {
          signIn.reset();
          setSecondStep(false);
        }}
      />
    );
  }
  const message = formMessage(signIn.error, ['email', 'password']);
  return (
    <AuthLayout title="Sign in to Postbox">
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
    </AuthLayout>
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
