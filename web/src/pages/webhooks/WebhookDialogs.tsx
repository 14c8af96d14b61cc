import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Webhook } from '../../../../src/api.js';
import { ConfirmDialog, ConfirmStep } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { DoneAction } from '../../components/DialogActions.js';
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
          <DoneAction onDone={close} />
        </div>
      ) : (
        <ConfirmStep
          mutation={rotate}
          confirmLabel="Rotate secret"
          pendingLabel="Rotating…"
          tone="primary"
          onConfirm={() => rotate.mutate(webhook.id, { onSuccess: (hook) => setSecret(hook.secret) })}
          onCancel={close}
        >
          <p>
            Deliveries are signed with a new secret at once, retries included. Until your receiver has it, it will
            reject them as unsigned.
          </p>
        </ConfirmStep>
      )}
    </Dialog>
  );
}

export function DisableWebhookDialog({ projectId, webhook, open, onClose }: DialogProps) {
  const update = useUpdateWebhook(projectId);
  return (
    <ConfirmDialog
      open={open}
      title="Disable this webhook?"
      mutation={update}
      confirmLabel="Disable webhook"
      pendingLabel="Disabling…"
      onConfirm={() => update.mutate({ id: webhook.id, enabled: false }, { onSuccess: onClose })}
      onClose={onClose}
    >
      <p>
        No new events go to <strong className="webhook-url">{webhook.url}</strong>, and deliveries still being retried
        fail. Events that happen while it is disabled are not sent later.
      </p>
    </ConfirmDialog>
  );
}

export function DeleteWebhookDialog({ projectId, webhook, open, onClose }: DialogProps) {
  const remove = useDeleteWebhook(projectId);
  const navigate = useNavigate();
  return (
    <ConfirmDialog
      open={open}
      title="Delete this webhook?"
      mutation={remove}
      confirmLabel="Delete webhook"
      pendingLabel="Deleting…"
      onConfirm={() => remove.mutate(webhook.id, { onSuccess: () => navigate('/webhooks', { replace: true }) })}
      onClose={onClose}
    >
      <p>
        Events stop going to <strong className="webhook-url">{webhook.url}</strong>, and its delivery history is deleted
        with it. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
