import { type FormEvent, useId, useState } from 'react';
import type { TwoFactorStatus } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { useDisableTwoFactor, useNewRecoveryCodes, useRefreshMe, useTwoFactorStatus } from '../../api/security.js';
import { Alert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';
import { QueryView } from '../../components/QueryView.js';
import { formatDate } from '../../format/dates.js';
import { RecoveryCodesView } from './RecoveryCodesView.js';
import { TwoFactorEnrolment } from './TwoFactorEnrolment.js';

/** Two-factor sign-in: its state, turning it on (enrolment), new recovery codes, turning it off. */
export function TwoFactorCard() {
  const status = useTwoFactorStatus();
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId} aria-busy={status.isPending || undefined}>
      <h2 id={headingId}>Two-factor sign-in</h2>
      <QueryView query={status} loading={<p>Loading…</p>} retry="small">
        {(found) => <TwoFactorState status={found} />}
      </QueryView>
    </section>
  );
}

function TwoFactorState({ status }: { status: TwoFactorStatus }) {
  const [enrolling, setEnrolling] = useState(false);
  const refreshMe = useRefreshMe();
  const required =
    status.requiredBy.length > 0 ? `Required by ${status.requiredBy.map((p) => p.name).join(', ')}.` : null;
  if (enrolling) {
    return (
      <TwoFactorEnrolment
        onCancel={() => setEnrolling(false)}
        onDone={() => {
          setEnrolling(false);
          void refreshMe();
        }}
      />
    );
  }
  if (!status.enabled) {
    return (
      <>
        <p>
          <span className="badge badge-pending">Off</span>{' '}
          <span className="muted">
            Signing in takes your password only. With two-factor sign-in, it also takes a code from an app on your
            phone, so a stolen password is not enough.
          </span>
        </p>
        {required && <p className="notice">{required} Turn it on to keep using the project.</p>}
        <p>
          <button type="button" className="button button-primary" onClick={() => setEnrolling(true)}>
            Set up two-factor sign-in
          </button>
        </p>
      </>
    );
  }
  return (
    <>
      <p>
        <span className="badge badge-ok">On</span>{' '}
        <span className="muted">
          Since {status.enabledAt ? formatDate(status.enabledAt) : '—'}. Signing in takes your password and a code from
          your authenticator app. {status.recoveryCodesLeft} of 10 recovery codes left.
        </span>
      </p>
      {required && <p className="muted small">{required} It cannot be turned off while a project requires it.</p>}
      <CodeAction kind="recovery" />
      {status.requiredBy.length === 0 && <CodeAction kind="disable" />}
    </>
  );
}

const ACTIONS = {
  recovery: {
    title: 'New recovery codes',
    explain: 'Replaces all your recovery codes: the old ones stop working.',
    label: 'Make new recovery codes',
    pending: 'Making…',
    tone: 'button',
  },
  disable: {
    title: 'Turn off',
    explain: 'Signing in will take your password only.',
    label: 'Turn off two-factor sign-in',
    pending: 'Turning off…',
    tone: 'button button-danger',
  },
} as const;

/** An action that takes a fresh code from the app: new recovery codes, or turning it off. */
function CodeAction({ kind }: { kind: keyof typeof ACTIONS }) {
  const words = ACTIONS[kind];
  const disable = useDisableTwoFactor();
  const renew = useNewRecoveryCodes();
  const mutation = kind === 'disable' ? disable : renew;
  const [codes, setCodes] = useState<string[] | null>(null);
  const headingId = useId();
  const fields = mutation.error instanceof ApiError ? fieldMessages(mutation.error.fieldErrors) : {};
  const message = formMessage(mutation.error, ['code']);
  if (codes) return <RecoveryCodesView codes={codes} onDone={() => setCodes(null)} />;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const code = String(new FormData(form).get('code') ?? '').trim();
    if (kind === 'disable') disable.mutate(code);
    else renew.mutate(code, { onSuccess: (res) => setCodes(res.recoveryCodes) });
  };
  return (
    <section className="stack code-action" aria-labelledby={headingId}>
      <h3 id={headingId}>{words.title}</h3>
      <p className="muted small">{words.explain}</p>
      <form className="account-row" noValidate onSubmit={submit}>
        <Field
          label="Code from your authenticator app"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={7}
          required
          error={fields.code}
        />
        <button type="submit" className={words.tone} disabled={mutation.isPending}>
          {mutation.isPending ? words.pending : words.label}
        </button>
      </form>
      {message && !fields.code && <Alert>{message}</Alert>}
    </section>
  );
}
