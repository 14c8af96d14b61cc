import type { ReactNode } from 'react';
import { errorMessage } from '../api/errors.js';
import { Alert } from './Alert.js';
import { Dialog } from './Dialog.js';
import { DialogActions } from './DialogActions.js';

/** What a confirmation needs of a react-query mutation: whether it runs, how it failed, and forgetting that. */
export interface MutationState {
  isPending: boolean;
  error: unknown;
  reset: () => void;
}

interface ConfirmStepProps {
  /** What confirming does, in words. */
  children: ReactNode;
  mutation: MutationState;
  confirmLabel: string;
  /** The confirming button's label while the mutation runs: "Deleting…". */
  pendingLabel: string;
  tone?: 'danger' | 'primary';
  onConfirm: () => void;
  onCancel: () => void;
}

/** The question of a dialog: what happens, why the last attempt failed, and Cancel or go ahead. */
export function ConfirmStep({
  children,
  mutation,
  confirmLabel,
  pendingLabel,
  tone = 'danger',
  onConfirm,
  onCancel,
}: ConfirmStepProps) {
  return (
    <>
      {children}
      {mutation.error ? <Alert>{errorMessage(mutation.error)}</Alert> : null}
      <DialogActions
        busy={mutation.isPending}
        label={confirmLabel}
        busyLabel={pendingLabel}
        tone={tone}
        onConfirm={onConfirm}
        onCancel={onCancel}
      />
    </>
  );
}

interface ConfirmDialogProps extends Omit<ConfirmStepProps, 'onCancel'> {
  open: boolean;
  title: string;
  onClose: () => void;
}

/**
 * Asks before a change that is hard to take back. Cancelling forgets the last failure, so the next
 * opening starts clean; nothing closes it while the change runs.
 */
export function ConfirmDialog({ open, title, onClose, ...step }: ConfirmDialogProps) {
  const close = () => {
    step.mutation.reset();
    onClose();
  };
  return (
    <Dialog open={open} title={title} onClose={close} busy={step.mutation.isPending}>
      <ConfirmStep {...step} onCancel={close} />
    </Dialog>
  );
}
