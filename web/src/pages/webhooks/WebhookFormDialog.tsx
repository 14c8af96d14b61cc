import { type FormEvent, useId, useState } from 'react';
import type { Webhook } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions, DoneAction } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { SecretView } from './SecretView.js';
import {
  choiceFromEvents,
  type EventChoice,
  eventsFromChoice,
  eventsProblem,
  NO_EVENTS,
  SERVICE_EVENTS,
  urlProblem,
} from './webhook-events.js';
import { useCreateWebhook, useUpdateWebhook } from './webhooks-api.js';

/** Creates a webhook (then shows its signing secret), or edits one when `webhook` is given. */
export function WebhookFormDialog({
  projectId,
  open,
  webhook,
  onClose,
}: {
  projectId: string;
  open: boolean;
  webhook?: Webhook;
  onClose: () => void;
}) {
  const [created, setCreated] = useState<Webhook | null>(null);
  const close = () => {
    setCreated(null);
    onClose();
  };
  const title = created ? 'Webhook created' : webhook ? 'Edit webhook' : 'New webhook';
  return (
    <Dialog open={open} title={title} onClose={close}>
      {created ? (
        <div className="stack">
          <p>
            Events now go to <strong className="webhook-url">{created.url}</strong>.
          </p>
          <SecretView secret={created.secret} />
          <DoneAction onDone={close} />
        </div>
      ) : (
        <WebhookForm projectId={projectId} webhook={webhook} onCreated={setCreated} onClose={close} />
      )}
    </Dialog>
  );
}

function WebhookForm({
  projectId,
  webhook,
  onCreated,
  onClose,
}: {
  projectId: string;
  webhook?: Webhook;
  onCreated: (hook: Webhook) => void;
  onClose: () => void;
}) {
  const create = useCreateWebhook(projectId);
  const update = useUpdateWebhook(projectId);
  const saving = webhook ? update : create;
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [choice, setChoice] = useState<EventChoice>(webhook ? choiceFromEvents(webhook.events) : NO_EVENTS);
  const [checked, setChecked] = useState(false);
  const legendId = useId();
  const eventsErrorId = useId();

  const server = saving.error instanceof ApiError ? fieldMessages(saving.error.fieldErrors) : {};
  const serverEvents = Object.entries(server).find(([f]) => f === 'events' || f.startsWith('events.'))?.[1];
  const errors = {
    url: (checked ? urlProblem(url) : null) ?? server.url,
    events: (checked ? eventsProblem(choice) : null) ?? serverEvents,
    description: server.description,
  };
  const placed = Object.keys(server).filter((f) => f === 'url' || f === 'description' || f.startsWith('events'));
  const message = formMessage(saving.error, placed);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (urlProblem(url) || eventsProblem(choice)) return;
    const body = { url: url.trim(), events: eventsFromChoice(choice), description: description.trim() || null };
    if (webhook) update.mutate({ id: webhook.id, ...body }, { onSuccess: onClose });
    else create.mutate(body, { onSuccess: onCreated });
  };

  const toggle = (name: string, on: boolean) =>
    setChoice((c) => ({ ...c, chosen: on ? [...c.chosen, name] : c.chosen.filter((n) => n !== name) }));

  return (
    <form className="stack" onSubmit={submit} noValidate>
      {message && <Alert>{message}</Alert>}
      <Field
        label="URL"
        type="url"
        name="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder="https://example.com/hooks/postbox"
        hint="Each event is POSTed here as JSON, signed with the webhook’s secret."
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        error={errors.url ?? undefined}
        required
      />
      <fieldset
        className="plain-fieldset webhook-events"
        aria-labelledby={legendId}
        aria-describedby={errors.events ? eventsErrorId : undefined}
      >
        <legend id={legendId} className="field-label">
          Events
        </legend>
        <label className="check-row">
          <input
            type="checkbox"
            checked={choice.all}
            onChange={(e) => setChoice((c) => ({ ...c, all: e.target.checked }))}
          />
          Every event, tracked ones included
        </label>
        {!choice.all && (
          <>
            <div className="webhook-event-grid">
              {SERVICE_EVENTS.map((e) => (
                <label key={e.name} className="check-row">
                  <input
                    type="checkbox"
                    checked={choice.chosen.includes(e.name)}
                    onChange={(event) => toggle(e.name, event.target.checked)}
                  />
                  <span>
                    {e.label} <code className="muted">{e.name}</code>
                  </span>
                </label>
              ))}
            </div>
            <Field
              label="Other events"
              name="other"
              autoComplete="off"
              spellCheck={false}
              placeholder="signed_up, segment.*"
              hint="Events you track, by name, or every event of a prefix such as email.*; separated by commas."
              value={choice.other}
              onChange={(e) => setChoice((c) => ({ ...c, other: e.target.value }))}
            />
          </>
        )}
        {errors.events && (
          <p id={eventsErrorId} className="field-error">
            {errors.events}
          </p>
        )}
      </fieldset>
      <Field
        label="Description (optional)"
        name="description"
        maxLength={500}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={errors.description}
      />
      <DialogActions
        busy={saving.isPending}
        label={webhook ? 'Save changes' : 'Create webhook'}
        busyLabel="Saving…"
        onCancel={onClose}
      />
    </form>
  );
}
