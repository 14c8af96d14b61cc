import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { useMe } from '../../api/auth.js';
import { ApiError } from '../../api/errors.js';
import { useEmail, useSendEmail } from '../../api/send.js';
import { CopyButton } from '../../components/CopyButton.js';
import { Field } from '../../components/Field.js';
import { deliveryWords, type TemplateForm } from './template-form.js';

/**
 * Sends what is in the editor (saved or not) by POST /v1/send to one address, with the data of the
 * preview (the contact's, or the sample) for this send only; then follows the email record to say where it went.
 */
export function SendTest({
  projectId,
  form,
  data,
  warning,
}: {
  projectId: string;
  form: TemplateForm;
  data: Record<string, unknown> | undefined;
  /** What the test would print nothing for, said before it is sent. */
  warning: ReactNode;
}) {
  const me = useMe();
  const [to, setTo] = useState<string | null>(null);
  const address = to ?? me.data?.email ?? '';
  const send = useSendEmail(projectId);
  const [emailId, setEmailId] = useState<string | null>(null);
  const email = useEmail(projectId, emailId);
  const titleId = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setEmailId(null);
    const from = form.fromName.trim() ? { name: form.fromName.trim(), email: form.from.trim() } : form.from.trim();
    send.mutate(
      {
        to: address.trim(),
        from,
        subject: form.subject,
        body: form.body,
        ...(form.replyTo.trim() ? { reply: form.replyTo.trim() } : {}),
        ...(data && Object.keys(data).length > 0 ? { data } : {}),
      },
      { onSuccess: (ids) => setEmailId(ids[0] ?? null) },
    );
  };

  const toError =
    send.error instanceof ApiError ? send.error.fieldErrors.find((e) => e.field.startsWith('to'))?.message : undefined;
  const otherErrors =
    send.error instanceof ApiError
      ? send.error.fieldErrors.length > 0
        ? send.error.fieldErrors
            .filter((e) => !e.field.startsWith('to'))
            .map((e) => `${e.field.split('.')[0]}: ${e.message}`)
        : [send.error.message]
      : send.error
        ? ['The test could not be sent.']
        : [];
  const outcome = email.data ? deliveryWords(email.data) : null;

  return (
    <form className="card stack send-test" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>Send a test</h2>
      <p className="muted small">
        Sends the content as it is in the editor, saved or not. The address becomes a contact of this project if it is
        not one yet.
      </p>
      {warning}
      <div className="send-test-row">
        <Field
          label="Send to"
          type="email"
          value={address}
          onChange={(e) => setTo(e.target.value)}
          autoComplete="email"
          spellCheck={false}
          error={toError}
        />
        <button type="submit" className="button" disabled={send.isPending || address.trim() === ''}>
          {send.isPending ? 'Sending…' : 'Send test'}
        </button>
      </div>
      <div aria-live="polite" className="send-outcome">
        {otherErrors.length > 0 && <p className="field-error">{otherErrors.join(' ')}</p>}
        {emailId && (
          <div className="stack-tight">
            <p className={`status status-${outcome?.tone ?? 'waiting'}`}>
              <span className="status-dot" aria-hidden="true" />
              {outcome?.text ?? 'Queued…'}
            </p>
            <p className="copyable small">
              <span className="muted">Email id</span> <code data-testid="test-email-id">{emailId}</code>
              <CopyButton value={emailId} label="Copy the test email’s id" />
            </p>
          </div>
        )}
      </div>
    </form>
  );
}
