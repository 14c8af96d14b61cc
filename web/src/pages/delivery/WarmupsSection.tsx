import { useId, useState } from 'react';
import type { DeliverySettings } from '../../../../src/api.js';
import { dayOf } from '../../../../src/domain/pacing.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { EmptyState } from '../../components/EmptyState.js';
import { useUpdateDeliverySettings } from './delivery-api.js';
import { removeWarmupBody, scheduleInWords, todayInWords, type WarmupView } from './delivery-settings.js';
import { WarmupDialog } from './WarmupDialog.js';

export function WarmupsSection({
  projectId,
  settings,
  admin,
}: {
  projectId: string;
  settings: DeliverySettings;
  admin: boolean;
}) {
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<WarmupView | null>(null);
  const remove = useUpdateDeliverySettings(projectId);
  const headingId = useId();
  const today = dayOf(new Date());

  return (
    <section className="stack" aria-labelledby={headingId}>
      <div className="page-heading-row">
        <div className="delivery-section-intro">
          <h2 id={headingId}>Warm-ups</h2>
          <p className="muted">
            A new sender domain earns the trust of mailbox providers by sending a little more each day. Campaign email
            over the day’s limit waits for the next day; days count in UTC.
          </p>
        </div>
        {admin && (
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            Add warm-up
          </button>
        )}
      </div>

      {settings.warmups.length === 0 ? (
        <EmptyState title="No warm-ups">
          <p className="muted">Every sender domain sends campaigns without a daily limit.</p>
        </EmptyState>
      ) : (
        <ul className="plain-list" aria-label="Warm-ups">
          {settings.warmups.map((w) => {
            const now = todayInWords(w, today);
            return (
              <li key={w.domain} className="card spread warmup">
                <div className="warmup-text">
                  <h3 className="domain-name">{w.domain}</h3>
                  <p className={`status status-${now.tone}`}>
                    <span className="status-dot" aria-hidden="true" />
                    {now.text}
                  </p>
                  <p className="muted small">{scheduleInWords(w)}</p>
                </div>
                {admin && (
                  <button
                    type="button"
                    className="button button-danger"
                    aria-label={`Remove the warm-up of ${w.domain}`}
                    onClick={() => setRemoving(w)}
                  >
                    Remove
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}

      <WarmupDialog projectId={projectId} settings={settings} open={adding} onClose={() => setAdding(false)} />
      <ConfirmDialog
        open={removing !== null}
        title={`Remove the warm-up of ${removing?.domain ?? 'this domain'}?`}
        mutation={remove}
        confirmLabel="Remove warm-up"
        pendingLabel="Removing…"
        onConfirm={() =>
          removing && remove.mutate(removeWarmupBody(settings, removing.domain), { onSuccess: () => setRemoving(null) })
        }
        onClose={() => setRemoving(null)}
      >
        <p>
          Campaigns from <strong>{removing?.domain}</strong> are sent without a daily limit from now on.
        </p>
      </ConfirmDialog>
    </section>
  );
}
