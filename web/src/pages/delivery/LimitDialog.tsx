import { type FormEvent, useState } from 'react';
import type { DeliverySettings } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { useUpdateDeliverySettings } from './delivery-api.js';
import {
  type DomainLimit,
  itemErrors,
  type LimitDraft,
  limitDraft,
  putLimitBody,
  readLimit,
} from './delivery-settings.js';

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
  const save = useUpdateDeliverySettings(projectId);
  const [draft, setDraft] = useState<LimitDraft>(() => limitDraft(limit));
  const [checked, setChecked] = useState(false);
  const [index, setIndex] = useState(0);
  const others = settings.recipientDomains.map((l) => l.domain).filter((d) => d !== limit?.domain);

  const read = readLimit(draft, others);
  const local: Partial<Record<keyof DomainLimit, string>> = checked && !read.ok ? read.errors : {};
  const server =
    save.error instanceof ApiError ? itemErrors(fieldMessages(save.error.fieldErrors), 'recipientDomains', index) : {};
  const error = (field: keyof DomainLimit) => local[field] ?? server[field];
  const placed = ['domain', 'perMinute', 'concurrency'].map((f) => `recipientDomains.${index}.${f}`);
  const message = formMessage(save.error, placed);
  const fallback = settings.defaultConcurrency === null ? 'no limit' : String(settings.defaultConcurrency);

  const change = (patch: Partial<LimitDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    if (save.error) save.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (!read.ok) return;
    const { body, index: at } = putLimitBody(settings, read.value, limit?.domain ?? null);
    setIndex(at);
    save.mutate(body, { onSuccess: onClose });
  };

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
      <DialogActions
        busy={save.isPending}
        label={limit ? 'Save limit' : 'Add limit'}
        busyLabel="Saving…"
        onCancel={onClose}
      />
    </form>
  );
}
