import type { WorkflowDetail, WorkflowStep } from '../../../../src/api.js';
import { formatDateTime } from '../../format/dates.js';
import { STEP_LABELS, stepTitle } from './graph-model.js';
import type { StepView } from './step-views.js';

const count = new Intl.NumberFormat();

export function triggerSummary(workflow: Pick<WorkflowDetail, 'triggerType' | 'triggerConfig'>): string {
  if (workflow.triggerType === 'MANUAL') return 'Started through the API';
  const event = workflow.triggerConfig.event;
  return typeof event === 'string' ? `When “${event}” happens` : 'No trigger event yet';
}

export function TriggerCard({
  workflow,
  selected,
  onOpen,
}: {
  workflow: WorkflowDetail;
  selected: boolean;
  onOpen: () => void;
}) {
  return (
    <button
      type="button"
      className={`step-card trigger-card ${selected ? 'is-selected' : ''}`}
      aria-pressed={selected}
      onClick={onOpen}
    >
      <span className="step-kind">Trigger</span>
      <span className="step-title">{triggerSummary(workflow)}</span>
    </button>
  );
}

/** One step as a button that opens it in the side panel; its counts and path marks read out with it. */
export function StepCard({
  step,
  view,
  selected,
  onOpen,
}: {
  step: WorkflowStep;
  view: StepView | undefined;
  selected: boolean;
  onOpen: () => void;
}) {
  const visited = view && view.visits.length > 0;
  const classes = [
    'step-card',
    `step-${step.type.toLowerCase().replace('_', '-')}`,
    selected ? 'is-selected' : '',
    visited || view?.current ? 'is-on-path' : '',
    view?.faults.length ? 'has-fault' : '',
  ];
  const last = view?.visits[view.visits.length - 1];
  return (
    <button
      type="button"
      className={classes.filter(Boolean).join(' ')}
      aria-pressed={selected}
      data-step-id={step.id}
      onClick={onOpen}
    >
      <span className="step-kind">{STEP_LABELS[step.type]}</span>
      <span className="step-title">{stepTitle(step)}</span>
      {view?.summary && <span className="step-summary">{view.summary}</span>}
      <span className="step-counts">
        {view && view.active > 0 && <span className="badge badge-pending">{count.format(view.active)} waiting</span>}
        {view?.mail && (
          <span className="step-mail">
            {count.format(view.mail.sent)} sent · {count.format(view.mail.opened)} opened ·{' '}
            {count.format(view.mail.clicked)} clicked
          </span>
        )}
      </span>
      {(visited || view?.current) && (
        <span className="step-path">
          {view?.current ? 'The contact is here' : `${last!.outcome} · ${formatDateTime(last!.at)}`}
          {view && view.visits.length > 1 && ` (${view.visits.length} visits)`}
        </span>
      )}
      {view?.faults.map((f) => (
        <span key={f} className="step-fault">
          {f}
        </span>
      ))}
    </button>
  );
}
