import { type FormEvent, useEffect, useRef, useState } from 'react';
import type { Enrolment } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { useBeginEnrolment, useConfirmEnrolment } from '../../api/security.js';
import { Alert, RetryAlert } from '../../components/Alert.js';
import { CopyButton } from '../../components/CopyButton.js';
import { Field } from '../../components/Field.js';
import { RecoveryCodesView } from './RecoveryCodesView.js';

/**
 * Turning two-factor sign-in on: the QR code (and its secret, for typing), a first code from the
 * app to confirm it, then the recovery codes, shown this once. `onDone` once they are saved.
 */
export function TwoFactorEnrolment({ onDone, onCancel }: { onDone: () => void; onCancel?: () => void }) {
  const begin = useBeginEnrolment();
  const confirm = useConfirmEnrolment();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = begin.mutate;
  // Once per enrolment shown: each start replaces the secret, and a second would void the QR code shown.
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    start(undefined, { onSuccess: setEnrolment });
  }, [start]);

  if (codes) return <RecoveryCodesView codes={codes} onDone={onDone} />;
  if (begin.isError)
    return <RetryAlert error={begin.error} onRetry={() => start(undefined, { onSuccess: setEnrolment })} />;
  if (!enrolment) return <p aria-busy="true">Preparing a QR code…</p>;

  const fields = confirm.error instanceof ApiError ? fieldMessages(confirm.error.fieldErrors) : {};
  const message = formMessage(confirm.error, ['code']);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('code') ?? '').trim();
    confirm.mutate(code, { onSuccess: (res) => setCodes(res.recoveryCodes) });
  };
  return (
    <div className="stack enrolment">
      <ol className="enrolment-steps">
        <li>
          <p>Scan this QR code with an authenticator app (such as 2FAS, Aegis, Google Authenticator or 1Password).</p>
          <img className="enrolment-qr" src={enrolment.qrCode} alt="QR code to add Postbox to an authenticator app" />
          <p className="muted small">Cannot scan it? Type this key into the app instead:</p>
          <p className="enrolment-secret">
            <code>{enrolment.secret.match(/.{1,4}/g)?.join(' ')}</code>{' '}
            <CopyButton value={enrolment.secret} label="Copy the key" />
          </p>
        </li>
        <li>
          <form className="stack" noValidate onSubmit={submit}>
            {message && !fields.code && <Alert>{message}</Alert>}
            <Field
              label="Code from the app"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={7}
              required
              hint="The six digits it shows for Postbox: this confirms the app is set up."
              error={fields.code}
            />
            <p className="button-row">
              <button type="submit" className="button button-primary" disabled={confirm.isPending}>
                {confirm.isPending ? 'Checking…' : 'Turn on two-factor sign-in'}
              </button>
              {onCancel && (
                <button type="button" className="button" onClick={onCancel}>
                  Cancel
                </button>
              )}
            </p>
          </form>
        </li>
      </ol>
    </div>
  );
}
