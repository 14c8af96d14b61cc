import { type FormEvent, useId, useState } from 'react';
import type { StepType, TriggerType, WorkflowDetail, WorkflowStep } from '../../../../src/api.js';
import { STEP_TYPES, stepTypeSpec } from '../../../../src/domain/workflows/step-types.js';
import { ApiError, errorMessage, fieldMessages } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';
import { formatDateTime } from '../../format/dates.js';
import { SaveRow } from './AmountAndUnit.js';
import {
  BRANCH_LABELS,
  type Placement,
  type Slot,
  STEP_LABELS,
  slotsOf,
  slotTransition,
  stepTitle,
} from './graph-model.js';
import { defaultConfig, EventPicker, StepConfigForm } from './StepConfigForm.js';
import type { StepView } from './step-views.js';
import type { CanvasEdits } from './useCanvasEdits.js';

export type PanelMode =
  | { kind: 'trigger' }
  | { kind: 'step'; stepId: string }
  | { kind: 'new'; placement: Placement; where: string };

const fieldErrors = (error: unknown): Record<string, string> =>
  error instanceof ApiError ? fieldMessages(error.fieldErrors) : {};

const STEP_HINTS: Record<StepType, string> = {
  SEND_EMAIL: 'Send a template to the contact',
  DELAY: 'Wait a while',
  WAIT_FOR_EVENT: 'Wait for an event, or give up',
  CONDITION: 'Branch on a condition: yes or no',
  WEBHOOK: 'Call a URL, signed',
  UPDATE_CONTACT: 'Change the contact’s data',
  EXIT: 'End the execution',
};

interface PanelProps {
  mode: PanelMode;
  workflow: WorkflowDetail;
  editable: boolean;
  edits: CanvasEdits;
  views: Map<string, StepView>;
  onClose: () => void;
  onSelect: (mode: PanelMode | null) => void;
  onSaveTrigger: (patch: {
    name: string;
    triggerType: TriggerType;
    triggerConfig: Record<string, unknown>;
    allowReentry: boolean;
  }) => Promise<unknown>;
}

/** The side panel: the trigger, one step's config as a form, or the palette for a new step. */
export function StepPanel(props: PanelProps) {
  const { mode, onClose } = props;
  const titleId = useId();
  const title =
    mode.kind === 'trigger'
      ? 'Trigger'
      : mode.kind === 'new'
        ? `New step ${mode.where}`
        : stepTitle(props.workflow.steps.find((s) => s.id === mode.stepId) ?? { type: 'EXIT', name: 'Step' });
  return (
    <aside className="card workflow-panel" aria-labelledby={titleId}>
      <div className="workflow-panel-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="button button-small" onClick={onClose}>
          Close
        </button>
      </div>
      {mode.kind === 'trigger' && <TriggerForm {...props} />}
      {mode.kind === 'new' && <NewStep key={JSON.stringify(mode.placement)} {...props} mode={mode} />}
      {mode.kind === 'step' &&
        (() => {
          const step = props.workflow.steps.find((s) => s.id === mode.stepId);
          return step ? <StepForm key={step.id + step.updatedAt} {...props} step={step} /> : null;
        })()}
    </aside>
  );
}

function TriggerForm({ workflow, onSaveTrigger }: PanelProps) {
  const [name, setName] = useState(workflow.name);
  const [type, setType] = useState<TriggerType>(workflow.triggerType);
  const [event, setEvent] = useState(String(workflow.triggerConfig.event ?? ''));
  const [reentry, setReentry] = useState(workflow.allowReentry);
  const reentryId = useId();
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const errors = fieldErrors(error);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await onSaveTrigger({
        name,
        triggerType: type,
        triggerConfig: type === 'EVENT' ? { event } : {},
        allowReentry: reentry,
      });
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="stack-tight" onSubmit={submit}>
      <Field label="Name" value={name} required error={errors.name} onChange={(e) => setName(e.target.value)} />
      <fieldset className="plain-fieldset">
        <legend className="section-legend">Starts</legend>
        <div className="radio-row">
          <label>
            <input type="radio" name="trigger" checked={type === 'EVENT'} onChange={() => setType('EVENT')} /> When an
            event happens
          </label>
          <label>
            <input type="radio" name="trigger" checked={type === 'MANUAL'} onChange={() => setType('MANUAL')} /> Only
            through the API
          </label>
        </div>
      </fieldset>
      {type === 'EVENT' && (
        <EventPicker
          label="Trigger event"
          value={event}
          onChange={setEvent}
          error={errors['triggerConfig.event'] ?? errors.triggerConfig}
        />
      )}
      <div className="checkbox-field">
        <input id={reentryId} type="checkbox" checked={reentry} onChange={(e) => setReentry(e.target.checked)} />
        <label htmlFor={reentryId}>A contact may go through it more than once</label>
      </div>
      {error && Object.keys(errors).length === 0 ? <Alert>{errorMessage(error)}</Alert> : null}
      <SaveRow label="Save trigger" saved={saved} />
    </form>
  );
}

/** The event that starts the workflow's executions, if an event does. */
function triggerEventOf(workflow: WorkflowDetail): string | null {
  return workflow.triggerType === 'EVENT' && typeof workflow.triggerConfig.event === 'string'
    ? workflow.triggerConfig.event
    : null;
}

function NewStep({ mode, edits, onSelect, workflow }: PanelProps & { mode: Extract<PanelMode, { kind: 'new' }> }) {
  const [type, setType] = useState<StepType | null>(null);
  const [config, setConfig] = useState<Record<string, unknown>>({});
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  // Inserted on a transition, a step must lead on: one that ends the execution cannot go there.
  const types = STEP_TYPES.filter((t) => mode.placement.kind === 'end' || !stepTypeSpec(t).ends);
  if (!type) {
    return (
      <fieldset className="plain-fieldset">
        <legend className="section-legend">Choose a step</legend>
        <ul className="step-palette">
          {types.map((t) => (
            <li key={t}>
              <button
                type="button"
                className="palette-item"
                onClick={() => {
                  setType(t);
                  setConfig(defaultConfig(t));
                }}
              >
                <span className="step-kind">{STEP_LABELS[t]}</span>
                <span className="muted small">{STEP_HINTS[t]}</span>
              </button>
            </li>
          ))}
        </ul>
      </fieldset>
    );
  }
  const errors = fieldErrors(error);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const made = await edits.add(mode.placement, { type, name: name.trim() || null, config });
      onSelect({ kind: 'step', stepId: made.id });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="stack-tight" onSubmit={submit}>
      <p className="muted">{STEP_LABELS[type]}</p>
      <Field label="Step name (optional)" value={name} onChange={(e) => setName(e.target.value)} />
      <StepConfigForm
        type={type}
        value={config}
        onChange={setConfig}
        errors={errors}
        triggerEvent={triggerEventOf(workflow)}
      />
      {error && !Object.keys(errors).some((f) => f.startsWith('config')) ? <Alert>{errorMessage(error)}</Alert> : null}
      <div className="editor-actions">
        <button type="submit" className="button button-primary" disabled={edits.busy}>
          Add step
        </button>
        <button type="button" className="button" onClick={() => setType(null)}>
          Another type
        </button>
      </div>
    </form>
  );
}

function StepForm({ step, workflow, editable, edits, views, onSelect }: PanelProps & { step: WorkflowStep }) {
  const [config, setConfig] = useState<Record<string, unknown>>(step.config);
  const [name, setName] = useState(step.name ?? '');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const errors = fieldErrors(error);
  const view = views.get(step.id);
  const run = async (change: () => Promise<unknown>) => {
    setError(null);
    setSaved(false);
    try {
      await change();
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await run(() => edits.update(step.id, { name: name.trim() || null, config }))) setSaved(true);
  };
  const remove = async (splice: boolean) => {
    if (await run(() => edits.remove(step.id, splice))) onSelect(null);
  };
  const cannotSplice = error instanceof ApiError && error.code === 'CANNOT_SPLICE';
  return (
    <div className="stack">
      {view && (view.visits.length > 0 || view.current) && (
        <section aria-label="The contact’s visits" className="notice">
          <ul className="plain-list">
            {view.visits.map((v) => (
              <li key={v.at}>
                {v.outcome} · <time dateTime={v.at}>{formatDateTime(v.at)}</time>
              </li>
            ))}
            {view.current && <li>The contact is at this step now</li>}
          </ul>
        </section>
      )}
      {view?.faults.map((f) => (
        <Alert key={f}>{f}</Alert>
      ))}
      <form className="stack-tight" onSubmit={submit}>
        <Field label="Step name (optional)" value={name} onChange={(e) => setName(e.target.value)} />
        <StepConfigForm
          type={step.type}
          value={config}
          onChange={setConfig}
          errors={errors}
          triggerEvent={triggerEventOf(workflow)}
        />
        <SaveRow label="Save step" saved={saved} busy={edits.busy} />
      </form>
      {editable && <LeadsTo step={step} workflow={workflow} edits={edits} onError={setError} />}
      {error && !Object.keys(errors).some((f) => f.startsWith('config')) ? <Alert>{errorMessage(error)}</Alert> : null}
      {editable && (
        <div className="editor-actions">
          <button type="button" className="button button-danger" disabled={edits.busy} onClick={() => remove(true)}>
            Delete step
          </button>
          {cannotSplice && (
            <button type="button" className="button" onClick={() => remove(false)}>
              Delete without reconnecting
            </button>
          )}
        </div>
      )}
      {editable && <p className="muted small">Deleting reconnects the step before it to the step after it.</p>}
    </div>
  );
}

/** Where each way out of the step leads: the keyboard's way to reconnect what the canvas drags. */
function LeadsTo({
  step,
  workflow,
  edits,
  onError,
}: {
  step: WorkflowStep;
  workflow: WorkflowDetail;
  edits: CanvasEdits;
  onError: (e: unknown) => void;
}) {
  const id = useId();
  const slots = slotsOf(step, workflow.transitions);
  if (slots.length === 0) return null;
  const choose = (slot: Slot, to: string) => edits.connect(slot, to || null).catch(onError);
  return (
    <fieldset className="plain-fieldset">
      <legend className="section-legend">Leads to</legend>
      {slots.map((slot) => (
        <div className="field" key={slot.branch ?? 'next'}>
          <label htmlFor={`${id}-${slot.branch ?? 'next'}`}>
            {slot.branch ? `${BRANCH_LABELS[slot.branch]} →` : 'Next step'}
          </label>
          <select
            id={`${id}-${slot.branch ?? 'next'}`}
            value={slotTransition(workflow.transitions, slot)?.toStepId ?? ''}
            disabled={edits.busy}
            onChange={(e) => choose(slot, e.target.value)}
          >
            <option value="">Nothing (the path ends)</option>
            {workflow.steps
              .filter((s) => s.id !== step.id)
              .map((s) => (
                <option key={s.id} value={s.id}>
                  {stepTitle(s)}
                </option>
              ))}
          </select>
        </div>
      ))}
    </fieldset>
  );
}
