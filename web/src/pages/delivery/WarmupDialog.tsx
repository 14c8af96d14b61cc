import { useId } from 'react';
import { Link } from 'react-router-dom';
import type { DeliverySettings } from '../../../../src/api.js';
import { dayOf } from '../../../../src/domain/pacing.js';
import { useDomains } from '../../api/domains.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import {
  addWarmupBody,
  type GrowthUnit,
  readWarmup,
  scheduleInWords,
  type WarmupDraft,
  warmupDraft,
} from './delivery-settings.js';
import { useListItemForm } from './useListItemForm.js';

const GROWTH_UNITS = [
  { value: 'percent', label: '% more each day' },
  { value: 'factor', label: '× the day before' },
];

export function WarmupDialog({
  projectId,
  settings,
  open,
  onClose,
}: {
  projectId: string;
  settings: DeliverySettings;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} title="Add a warm-up" onClose={onClose}>
      <SenderDomains projectId={projectId} settings={settings} onClose={onClose} />
    </Dialog>
  );
}

/** Only verified domains send mail, so only they are offered; those already warming up are left out. */
function SenderDomains({
  projectId,
  settings,
  onClose,
}: {
  projectId: string;
  settings: DeliverySettings;
  onClose: () => void;
}) {
  const domains = useDomains(projectId);
  const warming = settings.warmups.map((w) => w.domain);
  return (
    <QueryView query={domains} loading={<p>Loading your domains…</p>} retry="small">
      {(found) => {
        const free = found.filter((d) => d.verified && !warming.includes(d.domain)).map((d) => d.domain);
        if (free.length === 0) {
          return (
            <div className="stack">
              <p>
                No verified sender domain is left to warm up. Add one and verify it on the{' '}
                <Link to="/domains">Domains</Link> page first.
              </p>
              <div className="dialog-actions">
                <button type="button" className="button" onClick={onClose}>
                  Close
                </button>
              </div>
            </div>
          );
        }
        return <WarmupForm projectId={projectId} settings={settings} domains={free} onClose={onClose} />;
      }}
    </QueryView>
  );
}

function WarmupForm({
  projectId,
  settings,
  domains,
  onClose,
}: {
  projectId: string;
  settings: DeliverySettings;
  domains: string[];
  onClose: () => void;
}) {
  const warming = settings.warmups.map((w) => w.domain);
  const { draft, read, change, error, message, submit, busy } = useListItemForm({
    projectId,
    list: 'warmups',
    fields: ['domain', 'startVolume', 'dailyGrowth', 'fullVolume', 'startedOn'],
    initial: () => warmupDraft(dayOf(new Date()), domains[0]),
    initialIndex: settings.warmups.length,
    read: (d: WarmupDraft) => readWarmup(d, warming),
    body: (value) => addWarmupBody(settings, value),
    onSaved: onClose,
  });

  return (
    <form className="stack" noValidate onSubmit={submit}>
      {message && <Alert>{message}</Alert>}
      <DomainSelect
        value={draft.domain}
        domains={domains}
        onChange={(domain) => change({ domain })}
        error={error('domain')}
      />
      <Field
        label="Campaign emails on the first day"
        name="startVolume"
        inputMode="numeric"
        autoComplete="off"
        placeholder="200"
        value={draft.startVolume}
        onChange={(e) => change({ startVolume: e.target.value })}
        error={error('startVolume')}
      />
      <div className="growth-row">
        <Field
          label="Daily growth"
          name="dailyGrowth"
          inputMode="decimal"
          autoComplete="off"
          value={draft.growth}
          onChange={(e) => change({ growth: e.target.value })}
          error={error('dailyGrowth')}
        />
        <SelectField
          label="Growth as"
          value={draft.growthUnit}
          options={GROWTH_UNITS}
          onChange={(unit) => change({ growthUnit: unit as GrowthUnit })}
        />
      </div>
      <Field
        label="Full daily volume"
        name="fullVolume"
        inputMode="numeric"
        autoComplete="off"
        placeholder="100,000"
        hint="The warm-up ends the day its limit reaches this."
        value={draft.fullVolume}
        onChange={(e) => change({ fullVolume: e.target.value })}
        error={error('fullVolume')}
      />
      <Field
        label="Start date"
        name="startedOn"
        type="date"
        hint="Days count in UTC."
        value={draft.startedOn}
        onChange={(e) => change({ startedOn: e.target.value })}
        error={error('startedOn')}
      />
      {read.ok && <p className="warmup-preview">{scheduleInWords(read.value)}</p>}
      <DialogActions busy={busy} label="Add warm-up" busyLabel="Saving…" onCancel={onClose} />
    </form>
  );
}

/** The sender domain, with its error beside it (SelectField has no room for one). */
function DomainSelect({
  value,
  domains,
  onChange,
  error,
}: {
  value: string;
  domains: string[];
  onChange: (domain: string) => void;
  error?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Sender domain</label>
      <select
        id={id}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        {domains.map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </select>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
