import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Webhook } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { SecretView } from './SecretView.js';
import { useDeleteWebhook, useRotateSecret, useUpdateWebhook } from './webhooks-api.js';

interface DialogProps {
  projectId: string;
  webhook: Webhook;
  open: boolean;
  onClose: () => void;
}

/** Asks first, since the receiver rejects deliveries until it has the new secret; then shows it. */
export function RotateSecretDialog({ projectId, webhook, open, onClose }: DialogProps) {
  const rotate = useRotateSecret(projectId);
  const [secret, setSecret] = useState<string | null>(null);
  const close = () => {
    setSecret(null);
    rotate.reset();
    onClose();
  };
  return (
    <Dialog
      open={open}
      title={secret ? 'New signing secret' : 'Rotate the signing secret?'}
      onClose={close}
      busy={rotate.isPending}
    >
      {secret ? (
        <div className="stack">
          <p className="notice">Deliveries are signed with this secret from now on; the old one no longer matches.</p>
          <SecretView secret={secret} />
          <div className="dialog-actions">
            <button type="button" className="button button-primary" onClick={close}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <>
          <p>
            Deliveries are signed with a new secret at once, retries included. Until your receiver has it, it will
            reject them as unsigned.
          </p>
          {rotate.isError && <Alert>{errorMessage(rotate.error)}</Alert>}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={close} disabled={rotate.isPending}>
              Cancel
            </button>
            <button
              type="button"
              className="button button-primary"
              disabled={rotate.isPending}
              onClick={() => rotate.mutate(webhook.id, { onSuccess: (hook) => setSecret(hook.secret) })}
            >
              {rotate.isPending ? 'Rotating…' : 'Rotate secret'}
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}

export function DisableWebhookDialog({ projectId, webhook, open, onClose }: DialogProps) {
  const update = useUpdateWebhook(projectId);
  const close = () => {
    update.reset();
    onClose();
  };
  return (
    <Dialog open={open} title="Disable this webhook?" onClose={close} busy={update.isPending}>
      <p>
        No new events go to <strong className="webhook-url">{webhook.url}</strong>, and deliveries still being retried
        fail. Events that happen while it is disabled are not sent later.
      </p>
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={close} disabled={update.isPending}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={update.isPending}
          onClick={() => update.mutate({ id: webhook.id, enabled: false }, { onSuccess: close })}
        >
          {update.isPending ? 'Disabling…' : 'Disable webhook'}
        </button>
      </div>
    </Dialog>
  );
}

export function DeleteWebhookDialog({ projectId, webhook, open, onClose }: DialogProps) {
  const remove = useDeleteWebhook(projectId);
  const navigate = useNavigate();
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Dialog open={open} title="Delete this webhook?" onClose={close} busy={remove.isPending}>
      <p>
        Events stop going to <strong className="webhook-url">{webhook.url}</strong>, and its delivery history is deleted
        with it. This cannot be undone.
      </p>
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={close} disabled={remove.isPending}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={remove.isPending}
          onClick={() => remove.mutate(webhook.id, { onSuccess: () => navigate('/webhooks', { replace: true }) })}
        >
          {remove.isPending ? 'Deleting…' : 'Delete webhook'}
        </button>
      </div>
    </Dialog>
  );
}
