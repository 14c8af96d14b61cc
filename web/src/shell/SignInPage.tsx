import type { FormEvent } from 'react';
import { useSignIn } from '../api/auth.js';
import { ApiError, fieldMessages, formMessage } from '../api/errors.js';
import { Alert } from '../components/Alert.js';
import { Field } from '../components/Field.js';
import { AuthLayout } from './AuthLayout.js';

export function SignInPage() {
  const signIn = useSignIn();
  const fields = signIn.error instanceof ApiError ? fieldMessages(signIn.error.fieldErrors) : {};

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate({ email: String(form.get('email') ?? '').trim(), password: String(form.get('password') ?? '') });
  };

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
