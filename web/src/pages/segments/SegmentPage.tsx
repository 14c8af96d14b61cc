import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import type { Segment } from '../../../../src/api.js';
import { ApiError, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { BackLink } from '../../components/BackLink.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Field } from '../../components/Field.js';
import { DeveloperJson } from '../../components/filter-builder/DeveloperJson.js';
import { FilterBuilder } from '../../components/filter-builder/FilterBuilder.js';
import { LiveCount } from '../../components/filter-builder/LiveCount.js';
import { RecordPage } from '../../components/RecordPage.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { MatchesDrawer } from './MatchesDrawer.js';
import { MembershipCard } from './MembershipCard.js';
import { StaticMembers } from './StaticMembers.js';
import { EMPTY_FORM, formOf, isDirty, type SegmentForm, segmentPayload, splitErrors } from './segment-form.js';
import { TYPE_LABELS } from './segment-labels.js';
import { useDeleteSegment, useSaveSegment, useSegment } from './segments-api.js';
import './segments.css';

const FORM_FIELDS = ['name', 'description', 'type', 'trackMembership'];

/** `/segments/new` and `/segments/:id`. */
export default function SegmentPage() {
  const { id } = useParams();
  const project = useCurrentProject();
  const segment = useSegment(project.id, id);
  usePageTitle(id === undefined ? 'New segment' : (segment.data?.name ?? 'Segment'));
  const back = { to: '/segments', label: 'Segments' };

  if (id === undefined) {
    return (
      <section className="stack segment-page" aria-labelledby="segment-title">
        <BackLink to={back.to}>{back.label}</BackLink>
        <SegmentEditor key="new" projectId={project.id} segment={null} />
      </section>
    );
  }
  return (
    <RecordPage
      query={segment}
      back={back}
      labelledBy="segment-title"
      className="segment-page"
      title="Segment"
      missing={{
        heading: 'Segment not found',
        title: 'No such segment in this project',
        hint: 'It may have been deleted, or belong to another project.',
      }}
    >
      {(found) => <SegmentEditor key={found.id} projectId={project.id} segment={found} />}
    </RecordPage>
  );
}

function SegmentEditor({ projectId, segment }: { projectId: string; segment: Segment | null }) {
  const navigate = useNavigate();
  const [saved, setSaved] = useState<SegmentForm>(() => (segment ? formOf(segment) : EMPTY_FORM));
  const [form, setForm] = useState<SegmentForm>(saved);
  const set = <K extends keyof SegmentForm>(key: K, value: SegmentForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const dirty = isDirty(form, saved);
  const save = useSaveSegment(projectId, segment?.id);
  const remove = useDeleteSegment(projectId);
  const [deleting, setDeleting] = useState(false);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const drawerButton = useRef<HTMLButtonElement>(null);
  const closeDrawer = () => {
    setDrawerOpen(false);
    drawerButton.current?.focus();
  };
  const formId = useId();
  const errors = splitErrors(save.error instanceof ApiError ? save.error.fieldErrors : []);
  const message = formMessage(save.error, [...FORM_FIELDS, 'condition']);
  const dynamic = form.type === 'DYNAMIC';

  useEffect(() => {
    if (!dirty) return;
    const onLeave = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, [dirty]);

  const [nameMissing, setNameMissing] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    // The API answers a missing name with its legacy bare 400, which names no field: checked here.
    setNameMissing(form.name.trim() === '');
    if (form.name.trim() === '') return;
    save.mutate(segmentPayload(form, !segment), {
      onSuccess: (stored) => {
        setSaved(formOf(stored));
        setForm(formOf(stored));
        if (!segment) navigate(`/segments/${stored.id}`, { replace: true });
      },
    });
  };

  return (
    <>
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="segment-title">{segment ? saved.name : 'New segment'}</h1>
          <p className="muted small" aria-live="polite">
            {save.isPending ? 'Saving…' : dirty ? 'Unsaved changes' : segment ? 'All changes saved' : 'Not saved yet'}
          </p>
        </div>
        <div className="editor-actions">
          {segment && (
            <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
              Delete
            </button>
          )}
          <button type="submit" form={formId} className="button button-primary" disabled={save.isPending}>
            {segment ? 'Save changes' : 'Create segment'}
          </button>
        </div>
      </div>
      {message && <Alert>{message}</Alert>}

      <form id={formId} className="card stack segment-details" onSubmit={submit} noValidate>
        <div className="form-grid">
          <Field
            label="Name"
            value={form.name}
            maxLength={100}
            required
            error={nameMissing ? 'Name the segment' : errors.form.name}
            onChange={(e) => set('name', e.target.value)}
          />
          <Field
            label="Description"
            value={form.description}
            maxLength={500}
            error={errors.form.description}
            onChange={(e) => set('description', e.target.value)}
          />
        </div>
        {segment ? (
          <p className="muted small">
            <span className={`badge badge-segment-${form.type.toLowerCase()}`}>{TYPE_LABELS[form.type]}</span>{' '}
            {dynamic
              ? 'Contacts join and leave as they match the condition.'
              : 'Members are added and removed by hand.'}
          </p>
        ) : (
          <fieldset className="plain-fieldset">
            <legend className="section-legend">Type</legend>
            <div className="radio-row">
              <label>
                <input type="radio" name="segment-type" checked={dynamic} onChange={() => set('type', 'DYNAMIC')} />{' '}
                Dynamic: contacts matching a condition
              </label>
              <label>
                <input type="radio" name="segment-type" checked={!dynamic} onChange={() => set('type', 'STATIC')} />{' '}
                Static: a list kept by hand
              </label>
            </div>
          </fieldset>
        )}
        <label className="checkbox-row">
          <input
            type="checkbox"
            checked={form.trackMembership}
            onChange={(e) => set('trackMembership', e.target.checked)}
          />{' '}
          Track membership: record an event when a contact enters or leaves (workflows can start on it)
        </label>
      </form>

      {dynamic && (
        <div className="segment-builder-layout">
          <div className="card">
            <FilterBuilder
              value={form.condition}
              onChange={(condition) => set('condition', condition)}
              excludeSegmentId={segment?.id}
              label="Who is in this segment"
              errors={errors.tree}
            />
          </div>
          <aside className="card segment-count-card" aria-label="How many contacts match">
            <LiveCount condition={form.condition} />
            <button
              ref={drawerButton}
              type="button"
              className="button button-small"
              aria-expanded={drawerOpen}
              onClick={() => setDrawerOpen((o) => !o)}
            >
              {drawerOpen ? 'Hide matching contacts' : 'Preview matching contacts'}
            </button>
          </aside>
        </div>
      )}
      {dynamic && <DeveloperJson condition={form.condition} />}
      {dynamic && drawerOpen && <MatchesDrawer condition={form.condition} onClose={closeDrawer} />}

      {!dynamic && !segment && (
        <p className="muted">Create the segment, then add its members by pasting addresses or a CSV.</p>
      )}
      {!dynamic && segment && <StaticMembers projectId={projectId} segment={segment} />}
      {segment && <MembershipCard projectId={projectId} segment={segment} />}

      {segment && (
        <ConfirmDialog
          open={deleting}
          title={`Delete “${segment.name}”?`}
          mutation={remove}
          confirmLabel="Delete segment"
          pendingLabel="Deleting…"
          onConfirm={() => remove.mutate(segment.id, { onSuccess: () => navigate('/segments') })}
          onClose={() => setDeleting(false)}
        >
          <p>
            Campaigns and workflows stop finding contacts through it. A segment that a scheduled campaign or another
            segment uses cannot be deleted; the reason is shown here if so.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
