import type { DeliverySettings } from '../../../../src/api.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { type DomainLimit, type LimitDraft, limitDraft, putLimitBody, readLimit } from './delivery-settings.js';
import { useListItemForm } from './useListItemForm.js';

/** Adds a recipient domain's limit, or edits `limit`. */
export function LimitDialog({
  projectId,
  settings,
  open,
  limit,
  onClose,
}: {
  projectId: string;
  settings: DeliverySettings;
  open: boolean;
  limit: DomainLimit | null;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} title={limit ? `Limit of ${limit.domain}` : 'Add a recipient domain limit'} onClose={onClose}>
      <LimitForm projectId={projectId} settings={settings} limit={limit} onClose={onClose} />
    </Dialog>
  );
}

function LimitForm({
  projectId,
  settings,
  limit,
  onClose,
}: {
  projectId: string;
  settings: DeliverySettings;
  limit: DomainLimit | null;
  onClose: () => void;
}) {
  const others = settings.recipientDomains.map((l) => l.domain).filter((d) => d !== limit?.domain);
  const { draft, change, error, message, submit, busy } = useListItemForm({
    projectId,
    list: 'recipientDomains',
    fields: ['domain', 'perMinute', 'concurrency'],
    initial: () => limitDraft(limit),
    initialIndex: 0,
    read: (d: LimitDraft) => readLimit(d, others),
    body: (value) => putLimitBody(settings, value, limit?.domain ?? null),
    onSaved: onClose,
  });
  const fallback = settings.defaultConcurrency === null ? 'no limit' : String(settings.defaultConcurrency);

  return (
    <form className="stack" noValidate onSubmit={submit}>
      {message && <Alert>{message}</Alert>}
      <Field
        label="Recipient domain"
        name="domain"
        autoComplete="off"
        spellCheck={false}
        placeholder="gmail.com"
        value={draft.domain}
        onChange={(e) => change({ domain: e.target.value })}
        error={error('domain')}
      />
      <div className="form-grid">
        <Field
          label="Messages a minute"
          name="perMinute"
          inputMode="numeric"
          autoComplete="off"
          placeholder="No limit"
          hint="Shared by every worker. Empty: no limit."
          value={draft.perMinute}
          onChange={(e) => change({ perMinute: e.target.value })}
          error={error('perMinute')}
        />
        <Field
          label="Messages in flight"
          name="concurrency"
          inputMode="numeric"
          autoComplete="off"
          placeholder={`Default (${fallback})`}
          hint="At once, in each worker. Empty: the default."
          value={draft.concurrency}
          onChange={(e) => change({ concurrency: e.target.value })}
          error={error('concurrency')}
        />
      </div>
      <DialogActions busy={busy} label={limit ? 'Save limit' : 'Add limit'} busyLabel="Saving…" onCancel={onClose} />
    </form>
  );
}
