import { type FormEvent, useId, useState } from 'react';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../../../src/domain/password-rules.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { useChangePassword } from '../../api/security.js';
import { Alert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';

/** A new password, given the current one; every other session ends with it. */
export function PasswordCard() {
  const change = useChangePassword();
  const headingId = useId();
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string>('');
  const fields = change.error instanceof ApiError ? fieldMessages(change.error.fieldErrors) : {};
  const message = formMessage(change.error, ['currentPassword', 'newPassword']);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const currentPassword = String(data.get('currentPassword') ?? '');
    const newPassword = String(data.get('newPassword') ?? '');
    const short = newPassword.length < MIN_PASSWORD ? `At least ${MIN_PASSWORD} characters.` : null;
    setProblem(short);
    setDone('');
    if (short) return;
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: ({ endedSessions }) => {
          form.reset();
          setDone(
            endedSessions === 0
              ? 'Password changed.'
              : `Password changed. ${endedSessions} other ${endedSessions === 1 ? 'session was' : 'sessions were'} signed out.`,
          );
        },
      },
    );
  };

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Password</h2>
      <form className="stack password-form" noValidate onSubmit={submit}>
        {message && !fields.currentPassword && !fields.newPassword && <Alert>{message}</Alert>}
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          error={fields.currentPassword}
        />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          hint={`At least ${MIN_PASSWORD} characters. Every other session is signed out.`}
          error={problem ?? fields.newPassword}
        />
        <p>
          <button type="submit" className="button button-primary" disabled={change.isPending}>
            {change.isPending ? 'Changing…' : 'Change password'}
          </button>
        </p>
      </form>
      <p role="status" className="account-saved">
        {done}
      </p>
    </section>
  );
}
