import { type FormEvent, useState } from 'react';
import { MIN_PASSWORD_LENGTH } from '../../../src/domain/password-rules.js';
import { useSetupOwner } from '../api/auth.js';
import { ApiError, fieldMessages, formMessage } from '../api/errors.js';
import { Alert } from '../components/Alert.js';
import { Field } from '../components/Field.js';
import { AuthLayout } from './AuthLayout.js';

export function SetupPage() {
  const setup = useSetupOwner();
  const [tooShort, setTooShort] = useState(false);
  const fields = setup.error instanceof ApiError ? fieldMessages(setup.error.fieldErrors) : {};

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const input = {
      token: String(form.get('token') ?? '').trim(),
      email: String(form.get('email') ?? '').trim(),
      password: String(form.get('password') ?? ''),
    };
    const short = input.password.length < MIN_PASSWORD_LENGTH;
    setTooShort(short);
    if (!short) setup.mutate(input);
  };

  const message = formMessage(setup.error, ['token', 'email', 'password']);
  return (
    <AuthLayout
      title="Create the owner account"
      intro={
        <p className="muted">
          Nobody has signed in yet. Paste the one-time setup token that <code>npm start</code> printed in the terminal,
          then choose the owner's email and password.
        </p>
      }
    >
      <form className="stack" onSubmit={submit} noValidate>
        {message && <Alert>{message}</Alert>}
        <Field label="Setup token" name="token" autoComplete="off" spellCheck={false} required error={fields.token} />
        <Field label="Email" name="email" type="email" autoComplete="email" required error={fields.email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
          error={tooShort ? `At least ${MIN_PASSWORD_LENGTH} characters` : fields.password}
        />
        <button type="submit" className="button button-primary" disabled={setup.isPending}>
          {setup.isPending ? 'Creating…' : 'Create account'}
        </button>
      </form>
    </AuthLayout>
  );
}
