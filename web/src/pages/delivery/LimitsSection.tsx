import { type FormEvent, useId, useState } from 'react';
import type { DeliverySettings } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { EmptyState } from '../../components/EmptyState.js';
import { Field } from '../../components/Field.js';
import { TableHead } from '../../components/TableHead.js';
import { useUpdateDeliverySettings } from './delivery-api.js';
import {
  concurrencyInWords,
  type DomainLimit,
  perMinuteInWords,
  readDefaultConcurrency,
  removeLimitBody,
} from './delivery-settings.js';
import { LimitDialog } from './LimitDialog.js';

export function LimitsSection({
  projectId,
  settings,
  admin,
}: {
  projectId: string;
  settings: DeliverySettings;
  admin: boolean;
}) {
  // null: closed; `{ limit: null }`: adding one.
  const [editing, setEditing] = useState<{ limit: DomainLimit | null } | null>(null);
  const [removing, setRemoving] = useState<DomainLimit | null>(null);
  const remove = useUpdateDeliverySettings(projectId);
  const headingId = useId();
  const limits = settings.recipientDomains;

  return (
    <section className="stack" aria-labelledby={headingId}>
      <div className="page-heading-row">
        <div className="delivery-section-intro">
          <h2 id={headingId}>Recipient domain limits</h2>
          <p className="muted">
            Mailbox providers slow down or refuse senders that send too fast. A limit holds campaign email to a domain
            such as gmail.com to a rate, and to a number of messages in flight at once in each worker.
          </p>
        </div>
        {admin && (
          <button type="button" className="button button-primary" onClick={() => setEditing({ limit: null })}>
            Add limit
          </button>
        )}
      </div>

      {limits.length === 0 ? (
        <EmptyState title="No recipient domain limits">
          <p className="muted">No domain has a limit of its own: each gets the default below.</p>
        </EmptyState>
      ) : (
        <div className="table-region">
          <div className="table-scroll">
            <table className="table stack-on-narrow limits-table">
              <caption className="visually-hidden">Recipient domain limits</caption>
              <TableHead columns={['Domain', 'Rate', 'In flight']} actions={admin ? 'Actions' : undefined} />
              <tbody>
                {limits.map((l) => (
                  <tr key={l.domain}>
                    <td data-label="Domain" className="cell-domain">
                      {l.domain}
                    </td>
                    <td data-label="Rate">{perMinuteInWords(l)}</td>
                    <td data-label="In flight">{concurrencyInWords(l, settings.defaultConcurrency)}</td>
                    {admin && (
                      <td className="cell-actions">
                        <div className="button-row">
                          <button
                            type="button"
                            className="button button-small"
                            aria-label={`Edit the limit of ${l.domain}`}
                            onClick={() => setEditing({ limit: l })}
                          >
                            Edit
                          </button>
                          <button
                            type="button"
                            className="button button-small button-danger"
                            aria-label={`Remove the limit of ${l.domain}`}
                            onClick={() => setRemoving(l)}
                          >
                            Remove
                          </button>
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}

      <DefaultConcurrency projectId={projectId} value={settings.defaultConcurrency} admin={admin} />

      <LimitDialog
        projectId={projectId}
        settings={settings}
        open={editing !== null}
        limit={editing?.limit ?? null}
        onClose={() => setEditing(null)}
      />
      <ConfirmDialog
        open={removing !== null}
        title={`Remove the limit of ${removing?.domain ?? 'this domain'}?`}
        mutation={remove}
        confirmLabel="Remove limit"
        pendingLabel="Removing…"
        onConfirm={() =>
          removing && remove.mutate(removeLimitBody(settings, removing.domain), { onSuccess: () => setRemoving(null) })
        }
        onClose={() => setRemoving(null)}
      >
        <p>
          Campaign email to <strong>{removing?.domain}</strong> goes out as fast as the relay takes it, with the default
          number in flight.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** The limit in flight of every domain without one of its own: a form for admins, a sentence for members. */
function DefaultConcurrency({ projectId, value, admin }: { projectId: string; value: number | null; admin: boolean }) {
  const save = useUpdateDeliverySettings(projectId);
  const [draft, setDraft] = useState(value === null ? '' : String(value));
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const server = save.error instanceof ApiError ? fieldMessages(save.error.fieldErrors) : {};
  const message = formMessage(save.error, ['defaultConcurrency']);

  if (!admin) {
    return (
      <p className="card delivery-default">
        Domains without a limit of their own:{' '}
        <strong>{value === null ? 'no limit in flight' : `${value} in flight at once`}</strong>.
      </p>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const read = readDefaultConcurrency(draft);
    setProblem(read.ok ? null : read.error);
    if (read.ok) save.mutate({ defaultConcurrency: read.value }, { onSuccess: () => setSaved(true) });
  };

  return (
    <form className="card stack delivery-default" noValidate onSubmit={submit} aria-label="Default in flight">
      <div className="form-row">
        <Field
          label="In flight per domain, by default"
          name="defaultConcurrency"
          inputMode="numeric"
          autoComplete="off"
          placeholder="No limit"
          hint="Campaign messages at the relay at once for each domain without a limit of its own, in each worker. Empty: no limit."
          value={draft}
          onChange={(e) => {
            setDraft(e.target.value);
            setSaved(false);
            if (save.error) save.reset();
          }}
          error={problem ?? server.defaultConcurrency}
        />
        <button type="submit" className="button" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save default'}
        </button>
      </div>
      {message && <Alert>{message}</Alert>}
      <p role="status" className="delivery-saved">
        {saved ? 'Saved.' : ''}
      </p>
    </form>
  );
}
