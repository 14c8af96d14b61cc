import { useState } from 'react';
import type { Contact } from '../../../../src/api.js';
import { type ContactChange, useUpdateContact } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { useTopicList } from '../../api/topics.js';
import { Alert } from '../../components/Alert.js';
import { SelectField } from '../../components/SelectField.js';
import { formatDateTime } from '../../format/dates.js';
import { usePendingSignups } from '../forms/forms-api.js';
import { snoozeEnd, subscriptionLabel } from './contact-format.js';

const SNOOZE_OPTIONS = [
  { value: '1', label: '1 day' },
  { value: '7', label: '1 week' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
];

/**
 * The subscription and its changes, all through PATCH /contacts/{id}: `subscribed` (which also ends
 * a snooze) or `snoozedUntil` (unsubscribed until then, resubscribed by the service afterwards).
 */
export function SubscriptionCard({ projectId, contact }: { projectId: string; contact: Contact }) {
  const update = useUpdateContact(projectId, contact.id);
  const [snoozeDays, setSnoozeDays] = useState<number>(7);
  const [done, setDone] = useState('');
  const snoozed = contact.snoozedUntil !== null;
  const pending = usePendingSignups(projectId, contact.subscribed ? [] : [contact.id]).data?.get(contact.id);

  const change = (body: ContactChange, message: string) => update.mutate(body, { onSuccess: () => setDone(message) });

  return (
    <section className="card stack" aria-labelledby="subscription-title">
      <div className="card-heading">
        <h2 id="subscription-title">Subscription</h2>
        <span className="badge-row">
          <span className={contact.subscribed ? 'badge badge-ok' : snoozed ? 'badge badge-pending' : 'badge'}>
            {subscriptionLabel(contact)}
          </span>
          {pending && <span className="badge badge-pending">Pending</span>}
        </span>
      </div>
      {pending && (
        <p>
          Signed up through the form {pending.formName ? `“${pending.formName}”` : 'since deleted'}
          {pending.confirmationSentAt ? `; confirmation email sent ${formatDateTime(pending.confirmationSentAt)}` : ''}.
          Waiting for the click on its link (it works until {formatDateTime(pending.expiresAt)}).
        </p>
      )}
      <p className="muted">
        {contact.subscribed
          ? 'Campaigns reach this contact.'
          : snoozed
            ? `Paused until ${formatDateTime(contact.snoozedUntil!)}, then subscribed again by itself.`
            : 'Campaigns skip this contact.'}
      </p>
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
      <div className="button-row">
        {!contact.subscribed && (
          <button
            type="button"
            className="button button-primary"
            disabled={update.isPending}
            onClick={() => change({ subscribed: true }, 'Subscribed.')}
          >
            {snoozed ? 'Subscribe now' : 'Subscribe'}
          </button>
        )}
        {(contact.subscribed || snoozed) && (
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => change({ subscribed: false }, 'Unsubscribed.')}
          >
            Unsubscribe
          </button>
        )}
      </div>
      {contact.subscribed && (
        <div className="snooze-row">
          <SelectField
            label="Pause for"
            value={String(snoozeDays)}
            options={SNOOZE_OPTIONS}
            onChange={(days) => setSnoozeDays(Number(days))}
          />
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => change({ snoozedUntil: snoozeEnd(snoozeDays, new Date()) }, 'Snoozed.')}
          >
            Snooze
          </button>
        </div>
      )}
      <ContactTopics projectId={projectId} contact={contact} disabled={update.isPending} onChange={change} />
      <p className="visually-hidden" aria-live="polite">
        {update.isPending ? '' : done}
      </p>
    </section>
  );
}

/**
 * The contact's topics, each a switch saved at once (PATCH `topics`); internal topics too, marked.
 * With `subscribed` false no topic reaches the contact, whatever is ticked here.
 */
function ContactTopics({
  projectId,
  contact,
  disabled,
  onChange,
}: {
  projectId: string;
  contact: Contact;
  disabled: boolean;
  onChange: (body: ContactChange, message: string) => void;
}) {
  const topics = useTopicList(projectId);
  if (topics.isPending) return <p className="muted">Loading topics…</p>;
  if (topics.isError)
    return <p className="field-error">The topics could not be loaded: {errorMessage(topics.error)}</p>;
  if (topics.data.length === 0) return null;
  return (
    <fieldset className="plain-fieldset stack-tight contact-topics">
      <legend className="field-label">Topics</legend>
      {topics.data.map((t) => {
        const on = contact.topics?.[t.id] ?? t.defaultOn;
        return (
          <label key={t.id} className="check-row">
            <input
              type="checkbox"
              checked={on}
              disabled={disabled}
              onChange={(e) =>
                onChange(
                  { topics: { [t.id]: e.target.checked } },
                  `${e.target.checked ? 'Added to' : 'Removed from'} ${t.name}.`,
                )
              }
            />
            <span>
              {t.name}
              {!t.public && <span className="muted small"> (internal)</span>}
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}
