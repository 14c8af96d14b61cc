import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'react-router-dom';
import type { Execution, WorkflowDetail } from '../../../../src/api.js';
import { ApiError, errorMessage } from '../../api/errors.js';
import { useTemplatesPage } from '../../api/templates.js';
import { Alert } from '../../components/Alert.js';
import { BackLink } from '../../components/BackLink.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { ExecutionsCard } from './ExecutionsCard.js';
import {
  BRANCH_LABELS,
  type Placement,
  readingOrder,
  slotsOf,
  slotTransition,
  stepTitle,
  TRIGGER_ID,
} from './graph-model.js';
import { StepCard, TriggerCard } from './StepCard.js';
import { type PanelMode, StepPanel } from './StepPanel.js';
import { pathEdgeIds, stepViews } from './step-views.js';
import { useCanvasEdits } from './useCanvasEdits.js';
import { WorkflowCanvas } from './WorkflowCanvas.js';
import { useExecution, useStepStats, useWorkflow, useWorkflowCalls } from './workflows-api.js';
import './workflows.css';

const RANGES = [
  { value: '1', label: 'Last 24 hours' },
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
];

/** Below this width the canvas gives way to a list of the steps (docs/decisions.md). */
const NARROW = '(max-width: 767px)';

function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const onChange = () => setMatches(list.matches);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

export default function WorkflowPage() {
  const { id = '' } = useParams();
  const project = useCurrentProject();
  const workflow = useWorkflow(project.id, id);
  usePageTitle(workflow.data?.name ?? 'Workflow');
  return (
    <section className="stack workflow-page" aria-busy={workflow.isPending || undefined}>
      <BackLink to="/workflows">Workflows</BackLink>
      <QueryView query={workflow} loading={<p>Loading the workflow…</p>}>
        {(w) => <WorkflowEditor workflow={w} />}
      </QueryView>
    </section>
  );
}

/** The server's graph faults (422 on enabling), by the step they concern; the rest under `TRIGGER_ID`. */
function faultsOf(error: unknown): Map<string, string[]> {
  const faults = new Map<string, string[]>();
  if (!(error instanceof ApiError) || error.code !== 'WORKFLOW_INVALID') return faults;
  for (const f of error.fieldErrors) {
    const ids = f.received ? f.received.split(', ') : [TRIGGER_ID];
    for (const stepId of ids) faults.set(stepId, [...(faults.get(stepId) ?? []), f.message]);
  }
  return faults;
}

function WorkflowEditor({ workflow }: { workflow: WorkflowDetail }) {
  const project = useCurrentProject();
  const calls = useWorkflowCalls(project.id, workflow.id);
  const edits = useCanvasEdits(calls, workflow);
  const narrow = useMediaQuery(NARROW);
  const [chosen, setPanel] = useState<PanelMode | null>(null);
  // A step deleted (or brought back by undo under a new id) closes its panel.
  const panel = chosen?.kind === 'step' && !workflow.steps.some((s) => s.id === chosen.stepId) ? null : chosen;
  const [days, setDays] = useState('30');
  // Fixed while the range is: the counts are asked again, not for a moving window.
  const since = useMemo(() => new Date(Date.now() - Number(days) * 86_400_000).toISOString(), [days]);
  const stats = useStepStats(project.id, workflow.id, since);
  const [followed, setFollowed] = useState<Execution | null>(null);
  const path = useExecution(project.id, workflow.id, followed?.id ?? null);
  const [enableError, setEnableError] = useState<unknown>(null);
  const [pageError, setPageError] = useState<unknown>(null);
  const templates = useTemplatesPage(project.id, { page: 1, pageSize: 100, sort: 'name', dir: 'asc' });
  const templateNames = useMemo(
    () => new Map((templates.data?.data ?? []).map((t) => [t.id, t.name])),
    [templates.data],
  );
  const faults = useMemo(() => faultsOf(enableError), [enableError]);
  const views = useMemo(
    () => stepViews(workflow, stats.data, path.data, faults, templateNames),
    [workflow, stats.data, path.data, faults, templateNames],
  );
  const pathEdges = useMemo(() => pathEdgeIds(workflow, path.data), [workflow, path.data]);
  const editable = !workflow.enabled;
  const workspace = useRef<HTMLDivElement>(null);
  const [fullscreen, setFullscreen] = useState(false);
  useEffect(() => {
    const onChange = () => setFullscreen(document.fullscreenElement === workspace.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const onOpen = useCallback(
    (stepId: string) => setPanel(stepId === TRIGGER_ID ? { kind: 'trigger' } : { kind: 'step', stepId }),
    [],
  );
  const onPlace = useCallback((placement: Placement, where: string) => setPanel({ kind: 'new', placement, where }), []);
  const run = (change: () => Promise<unknown>) => {
    setPageError(null);
    change().catch(setPageError);
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (!(e.metaKey || e.ctrlKey) || e.key.toLowerCase() !== 'z' || target.closest('input, textarea, select')) return;
      e.preventDefault();
      run(e.shiftKey ? edits.redo : edits.undo);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const toggleEnabled = async () => {
    setEnableError(null);
    try {
      await calls.patch({ enabled: !workflow.enabled });
    } catch (err) {
      setEnableError(err);
    } finally {
      await calls.refresh();
    }
  };
  const general = faults.get(TRIGGER_ID);
  const titleOf = (stepId: string | null) => {
    const s = workflow.steps.find((x) => x.id === stepId);
    return s ? stepTitle(s) : '—';
  };

  return (
    <>
      <div className="page-heading-row">
        <div className="page-heading">
          <h1>{workflow.name}</h1>
          <p className="muted">
            <span className={`badge ${workflow.enabled ? 'badge-ok' : ''}`}>
              {workflow.enabled ? 'Enabled' : 'Disabled'}
            </span>{' '}
            {workflow.enabled
              ? 'Disable it to add, remove or reconnect steps; step settings can change while it runs.'
              : 'Draw the steps, then enable it.'}
          </p>
        </div>
        <button type="button" className={`button ${workflow.enabled ? '' : 'button-primary'}`} onClick={toggleEnabled}>
          {workflow.enabled ? 'Disable' : 'Enable'}
        </button>
      </div>
      {enableError && !general && faults.size === 0 ? <Alert>{errorMessage(enableError)}</Alert> : null}
      {faults.size > 0 && (
        <Alert>
          The workflow cannot run yet: {[...new Set([...faults.values()].flat())].join(' · ')}. The steps concerned are
          marked.
        </Alert>
      )}
      {pageError ? <Alert>{errorMessage(pageError)}</Alert> : null}

      <div className="toolbar workflow-toolbar">
        <button
          type="button"
          className="button button-small"
          disabled={!editable || !edits.canUndo}
          onClick={() => run(edits.undo)}
          title={edits.undoLabel ? `Undo ${edits.undoLabel}` : undefined}
        >
          Undo
        </button>
        <button
          type="button"
          className="button button-small"
          disabled={!editable || !edits.canRedo}
          onClick={() => run(edits.redo)}
          title={edits.redoLabel ? `Redo ${edits.redoLabel}` : undefined}
        >
          Redo
        </button>
        {!narrow && (
          <button
            type="button"
            className="button button-small"
            aria-pressed={fullscreen}
            onClick={() =>
              fullscreen ? document.exitFullscreen() : workspace.current?.requestFullscreen().catch(() => {})
            }
          >
            {fullscreen ? 'Exit full screen' : 'Full screen'}
          </button>
        )}
        <SelectField
          label="Counts over"
          value={days}
          options={RANGES}
          onChange={setDays}
          className="field field-inline"
        />
        <FollowContact workflowId={workflow.id} onFound={setFollowed} followed={followed} />
      </div>
      {followed && path.data && (
        <p className="notice" role="status">
          Showing the path of {followed.email}: {path.data.status}
          {path.data.steps.length > 0 ? `, ${path.data.steps.length} steps taken` : ''}.{' '}
          <button type="button" className="button button-small" onClick={() => setFollowed(null)}>
            Stop following
          </button>
        </p>
      )}

      <div ref={workspace} className={`workflow-workspace ${panel ? 'has-panel' : ''}`}>
        {narrow ? (
          <StepList
            workflow={workflow}
            views={views}
            selected={panelId(panel)}
            onOpen={onOpen}
            onPlace={onPlace}
            editable={editable}
          />
        ) : (
          <div className="workflow-canvas" data-testid="workflow-canvas">
            <WorkflowCanvas
              workflow={workflow}
              editable={editable}
              views={views}
              selected={panelId(panel)}
              pathEdges={pathEdges}
              onOpen={onOpen}
              onPlace={onPlace}
              onConnect={(slot, to) => run(() => edits.connect(slot, to))}
              onRetarget={(t, to) => run(() => edits.retarget(t, to))}
              // The canvas already shows the step where it was dropped: nothing to read back.
              onMoved={(stepId, position) => calls.patchStep(stepId, { position }).catch(setPageError)}
            />
          </div>
        )}
        {panel && (
          <StepPanel
            mode={panel}
            workflow={workflow}
            editable={editable}
            edits={edits}
            views={views}
            onClose={() => setPanel(null)}
            onSelect={setPanel}
            onSaveTrigger={async (patch) => {
              await calls.patch(patch);
              await calls.refresh();
            }}
          />
        )}
      </div>

      <ExecutionsCard workflowId={workflow.id} calls={calls} stepTitle={titleOf} onFollow={setFollowed} />
    </>
  );
}

const panelId = (panel: PanelMode | null) =>
  panel?.kind === 'step' ? panel.stepId : panel?.kind === 'trigger' ? TRIGGER_ID : null;

/** Finds the latest execution of a contact by address, to show its path. */
function FollowContact({
  workflowId,
  followed,
  onFound,
}: {
  workflowId: string;
  followed: Execution | null;
  onFound: (e: Execution | null) => void;
}) {
  const project = useCurrentProject();
  const calls = useWorkflowCalls(project.id, workflowId);
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setMessage(null);
    try {
      const page = await calls.executionsOf(email.trim());
      if (page.data.length === 0) {
        setMessage(`No execution of this workflow for ${email.trim()}`);
        onFound(null);
      } else onFound(page.data[0]!);
    } catch (err) {
      setMessage(errorMessage(err));
    }
  };
  return (
    <form className="follow-form" aria-label="Contact path search" onSubmit={submit}>
      <label htmlFor="follow-email">Follow a contact</label>
      <input
        id="follow-email"
        type="email"
        placeholder="name@example.com"
        value={email}
        required
        aria-describedby={message ? 'follow-message' : undefined}
        onChange={(e) => setEmail(e.target.value)}
      />
      <button type="submit" className="button button-small">
        Show path
      </button>
      <span id="follow-message" role="status" className="muted small">
        {message ?? (followed ? '' : '')}
      </span>
    </form>
  );
}

/** The narrow screens' view: the steps in reading order as a list, each opening in the panel. */
function StepList({
  workflow,
  views,
  selected,
  editable,
  onOpen,
  onPlace,
}: {
  workflow: WorkflowDetail;
  views: ReturnType<typeof stepViews>;
  selected: string | null;
  editable: boolean;
  onOpen: (id: string) => void;
  onPlace: (p: Placement, where: string) => void;
}) {
  return (
    <ol className="step-list" aria-label={`Steps of ${workflow.name}`}>
      <li>
        <TriggerCard workflow={workflow} selected={selected === TRIGGER_ID} onOpen={() => onOpen(TRIGGER_ID)} />
      </li>
      {readingOrder(workflow).map((step) => (
        <li key={step.id}>
          <StepCard
            step={step}
            view={views.get(step.id)}
            selected={selected === step.id}
            onOpen={() => onOpen(step.id)}
          />
          {editable &&
            slotsOf(step, workflow.transitions)
              .filter((slot) => !slotTransition(workflow.transitions, slot))
              .map((slot) => {
                const where = `after ${stepTitle(step)}${slot.branch ? ` (${BRANCH_LABELS[slot.branch]})` : ''}`;
                return (
                  <button
                    key={slot.branch ?? 'next'}
                    type="button"
                    className="button button-small"
                    onClick={() => onPlace({ kind: 'end', slot }, where)}
                  >
                    Add a step {where}
                  </button>
                );
              })}
        </li>
      ))}
      {editable && workflow.steps.length === 0 && (
        <li>
          <button
            type="button"
            className="button"
            onClick={() => onPlace({ kind: 'end', slot: null }, 'after the trigger')}
          >
            Add the first step
          </button>
        </li>
      )}
    </ol>
  );
}
