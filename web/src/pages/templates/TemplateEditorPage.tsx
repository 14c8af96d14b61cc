import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { EmailType, Template } from '../../../../src/api.js';
import { ApiError, errorMessage, fieldMessages, formMessage } from '../../api/errors.js';
import {
  type Preview,
  type PreviewInput,
  useDuplicateTemplate,
  usePreview,
  useSaveTemplate,
  useTemplate,
  useTemplateUsage,
  useUploadImage,
} from '../../api/templates.js';
import { Alert, RetryAlert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';
import { useLeaveGuard } from '../../components/useLeaveGuard.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { NotFoundPage } from '../../shell/NotFoundPage.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { BodyField } from './BodyField.js';
import { DeleteTemplateDialog } from './DeleteTemplateDialog.js';
import { EmptyPlaceholders, useEmptyPlaceholders, useNewestContact } from './EmptyPlaceholders.js';
import { PreviewPanel } from './PreviewPanel.js';
import { PreviewSource, type PreviewSourceChoice } from './PreviewSource.js';
import { SendTest } from './SendTest.js';
import { SpamCheckPanel } from './SpamCheckPanel.js';
import { parseSampleData, transientData } from './sample-data.js';
import { TemplateHistory } from './TemplateHistory.js';
import { TopicSelect } from './TopicSelect.js';
import { TrackingSelects } from './TrackingSelects.js';
import {
  EMPTY_FORM,
  errorLine,
  FORM_FIELDS,
  formOf,
  isDirty,
  renderErrors,
  type TemplateForm,
  templatePayload,
  usageSentence,
} from './template-form.js';
import { TEMPLATE_TYPES, TYPE_LABELS } from './template-list.js';
import { useDebounced } from './useDebounced.js';
import { useTemplateCompletions } from './useTemplateCompletions.js';

const PREVIEW_DEBOUNCE_MS = 300;
const SAMPLE_DATA = '{\n  "firstName": "Ada"\n}';

/** `/templates/new` and `/templates/:id`. */
export default function TemplateEditorPage() {
  const { id } = useParams();
  const isNew = id === undefined;
  const project = useCurrentProject();
  const template = useTemplate(project.id, id);
  usePageTitle(isNew ? 'New template' : (template.data?.name ?? 'Template'));

  if (isNew) return <TemplateEditor key="new" projectId={project.id} template={null} />;
  if (template.isPending) return <p aria-busy="true">Loading…</p>;
  if (template.isError) {
    if (template.error instanceof ApiError && (template.error.status === 404 || template.error.status === 422))
      return <NotFoundPage />;
    return <RetryAlert error={template.error} onRetry={() => template.refetch()} />;
  }
  return <TemplateEditor key={template.data.id} projectId={project.id} template={template.data} />;
}

function TemplateEditor({ projectId, template }: { projectId: string; template: Template | null }) {
  const navigate = useNavigate();
  const [saved, setSaved] = useState<TemplateForm>(() => (template ? formOf(template) : EMPTY_FORM));
  const [form, setForm] = useState<TemplateForm>(saved);
  const set = <K extends keyof TemplateForm>(key: K, value: TemplateForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const dirty = isDirty(form, saved);
  const save = useSaveTemplate(projectId, template?.id);
  const duplicate = useDuplicateTemplate(projectId);
  const upload = useUploadImage(projectId);
  const [deleting, setDeleting] = useState(false);
  const [historyOpen, setHistoryOpen] = useState(false);
  const historyButton = useRef<HTMLButtonElement>(null);
  const [restoredNote, setRestoredNote] = useState<string | null>(null);
  // The body field chooses blocks or code when it starts: restored content starts it again.
  const [bodyKey, setBodyKey] = useState(0);
  const ids = { form: useId(), history: useId() };

  // Preview: what is typed, once typing pauses, for a contact (the newest, until one is chosen) or sample data.
  const [chosenSource, setSource] = useState<PreviewSourceChoice | null>(null);
  const newest = useNewestContact(projectId);
  const source: PreviewSourceChoice | null =
    chosenSource ?? (newest ? { kind: 'contact', contact: newest } : newest === null ? { kind: 'sample' } : null);
  const [sampleText, setSampleText] = useState(SAMPLE_DATA);
  const sample = useMemo(() => parseSampleData(sampleText), [sampleText]);
  const lastGoodSample = useRef<Record<string, unknown>>({});
  if (sample.ok) lastGoodSample.current = sample.data;
  // Debounced as one string: an object made anew on each render would never settle.
  const contentKey = useDebounced(
    JSON.stringify({ subject: form.subject, body: form.body, type: form.type, data: lastGoodSample.current }),
    PREVIEW_DEBOUNCE_MS,
  );
  const content = useMemo(
    () => JSON.parse(contentKey) as { subject: string; body: string; type: EmailType; data: Record<string, unknown> },
    [contentKey],
  );
  const previewInput: PreviewInput | null = !source
    ? null
    : source.kind === 'contact'
      ? source.contact
        ? { subject: content.subject, body: content.body, type: content.type, contactId: source.contact.id }
        : null
      : { subject: content.subject, body: content.body, type: content.type, data: content.data };
  const preview = usePreview(projectId, previewInput);
  const { empty, emptyFor } = useEmptyPlaceholders(content, source);
  const lastGoodPreview = useRef<Preview | undefined>(undefined);
  if (preview.data) lastGoodPreview.current = preview.data;
  const previewErrors = preview.error instanceof ApiError ? renderErrors(preview.error.fieldErrors) : {};
  const previewProblem = preview.error
    ? previewErrors.body || previewErrors.subject
      ? 'The template does not render.'
      : `The preview failed: ${errorMessage(preview.error)}`
    : null;

  const { dataFields, completions } = useTemplateCompletions(projectId);

  // Save errors beside their fields; a sender domain refused (403) is about the From field.
  const saveFields = save.error instanceof ApiError ? fieldMessages(save.error.fieldErrors) : {};
  if (save.error instanceof ApiError && save.error.status === 403) saveFields.from = save.error.message;
  const saveMessage =
    save.error instanceof ApiError && save.error.status === 403 ? null : formMessage(save.error, [...FORM_FIELDS]);
  const bodyError = saveFields.body ?? previewErrors.body;
  const subjectError = saveFields.subject ?? previewErrors.subject;
  const markedLine = previewErrors.body ? errorLine(previewErrors.body) : null;

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (save.isPending) return;
    const sent = form;
    save.mutate(templatePayload(sent), {
      onSuccess: (stored) => {
        setSaved(formOf(stored));
        if (!template) navigate(`/templates/${stored.id}`, { replace: true });
      },
    });
  };
  const latestSubmit = useRef(submit);
  latestSubmit.current = submit;

  // Ctrl/Cmd+S saves; leaving with unsaved changes asks first.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        latestSubmit.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useLeaveGuard(dirty);

  return (
    <section className="stack template-editor" aria-labelledby="template-title">
      <div className="page-heading-row">
        <div className="page-heading">
          <Link to="/templates" className="back-link">
            ← Templates
          </Link>
          <h1 id="template-title">{template ? saved.name || 'Untitled' : 'New template'}</h1>
          <p className="muted small" aria-live="polite">
            {save.isPending ? 'Saving…' : dirty ? 'Unsaved changes' : template ? 'All changes saved' : 'Not saved yet'}
          </p>
        </div>
        <div className="editor-actions">
          {template && (
            <>
              <button
                type="button"
                className="button"
                ref={historyButton}
                aria-expanded={historyOpen}
                aria-controls={historyOpen ? ids.history : undefined}
                onClick={() => setHistoryOpen((o) => !o)}
              >
                History
              </button>
              <button
                type="button"
                className="button"
                disabled={duplicate.isPending}
                onClick={() =>
                  duplicate.mutate(template.id, { onSuccess: (copy) => navigate(`/templates/${copy.id}`) })
                }
              >
                {duplicate.isPending ? 'Duplicating…' : 'Duplicate'}
              </button>
              <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
                Delete
              </button>
            </>
          )}
          <button type="submit" form={ids.form} className="button button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : template ? 'Save' : 'Create template'}
          </button>
        </div>
      </div>

      {restoredNote && (
        <p className="notice" role="status">
          {restoredNote}
        </p>
      )}
      {template && historyOpen && (
        <div id={ids.history}>
          <TemplateHistory
            projectId={projectId}
            template={template}
            unsaved={dirty}
            onClose={() => {
              setHistoryOpen(false);
              // The closing button goes with the panel: focus goes back to the one that opened it.
              historyButton.current?.focus();
            }}
            onRestored={(restored, from) => {
              const values = formOf(restored);
              setSaved(values);
              setForm(values);
              setBodyKey((k) => k + 1);
              setRestoredNote(`Version ${from} restored as version ${restored.version}.`);
            }}
          />
        </div>
      )}
      {saveMessage && <Alert>{saveMessage}</Alert>}
      {duplicate.isError && <Alert>{errorMessage(duplicate.error)}</Alert>}

      <div className="editor-layout">
        <div className="stack editor-main">
          <form id={ids.form} className="card template-form" onSubmit={submit} noValidate aria-label="Template">
            <div className="form-grid">
              <Field
                label="Name"
                value={form.name}
                onChange={(e) => set('name', e.target.value)}
                required
                autoComplete="off"
                hint="For the dashboard; recipients never see it."
                error={saveFields.name}
              />
              <TypeSelect value={form.type} onChange={(v) => set('type', v)} error={saveFields.type} />
              <Field
                className="span-all"
                label="Subject"
                value={form.subject}
                onChange={(e) => set('subject', e.target.value)}
                required
                autoComplete="off"
                error={subjectError}
              />
              <Field
                label="From"
                type="email"
                value={form.from}
                onChange={(e) => set('from', e.target.value)}
                required
                autoComplete="off"
                spellCheck={false}
                placeholder="hello@example.com"
                error={saveFields.from}
              />
              <Field
                label="From name"
                value={form.fromName}
                onChange={(e) => set('fromName', e.target.value)}
                autoComplete="off"
                error={saveFields.fromName}
              />
              <Field
                label="Reply-to"
                type="email"
                value={form.replyTo}
                onChange={(e) => set('replyTo', e.target.value)}
                autoComplete="off"
                spellCheck={false}
                error={saveFields.replyTo}
              />
              <TrackingSelects
                opens={form.trackOpens}
                clicks={form.trackClicks}
                onChange={(change) => setForm((f) => ({ ...f, ...change }))}
              />
              {form.type === 'MARKETING' && (
                <TopicSelect
                  projectId={projectId}
                  value={form.topicId}
                  onChange={(topicId) => set('topicId', topicId)}
                  error={saveFields.topicId}
                />
              )}
              <DescriptionField
                value={form.description}
                onChange={(v) => set('description', v)}
                error={saveFields.description}
              />
            </div>

            <BodyField
              key={bodyKey}
              value={{ body: form.body, bodySource: form.bodySource }}
              onChange={(next) => setForm((f) => (isDirty({ ...f, ...next }, f) ? { ...f, ...next } : f))}
              fields={dataFields}
              completions={completions}
              bodyError={bodyError}
              errorLine={markedLine}
              uploadImage={(file) => upload.mutateAsync(file)}
              uploading={upload.isPending}
              uploadError={upload.error}
            />
          </form>
          {template && <UsageNote projectId={projectId} id={template.id} />}
        </div>

        <aside className="stack editor-side" aria-label="Preview and test">
          <PreviewPanel
            preview={preview.data ?? lastGoodPreview.current}
            updating={preview.isFetching}
            problem={previewProblem}
            empty={emptyFor ? <EmptyPlaceholders placeholders={empty} recipient={emptyFor} /> : null}
          />
          <PreviewSource
            projectId={projectId}
            choice={source ?? { kind: 'contact', contact: null }}
            onChoice={setSource}
            sampleText={sampleText}
            onSampleText={setSampleText}
            sampleError={sample.ok ? null : sample.message}
          />
          <SpamCheckPanel
            projectId={projectId}
            form={form}
            recipient={
              source?.kind === 'contact' && source.contact
                ? { contactId: source.contact.id }
                : { data: lastGoodSample.current }
            }
          />
          <SendTest
            projectId={projectId}
            form={form}
            data={
              source?.kind === 'sample'
                ? transientData(lastGoodSample.current)
                : source?.contact
                  ? transientData(source.contact.data)
                  : undefined
            }
            warning={
              emptyFor && empty.length > 0 ? <EmptyPlaceholders placeholders={empty} recipient={emptyFor} /> : null
            }
          />
        </aside>
      </div>

      {template && (
        <DeleteTemplateDialog
          projectId={projectId}
          template={template}
          open={deleting}
          onClose={() => setDeleting(false)}
          onDeleted={() => navigate('/templates', { replace: true })}
        />
      )}
    </section>
  );
}

function TypeSelect({
  value,
  onChange,
  error,
}: {
  value: EmailType;
  onChange: (v: EmailType) => void;
  error?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Type</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value as EmailType)}
        aria-describedby={`${id}-hint`}
        aria-invalid={error ? true : undefined}
      >
        {TEMPLATE_TYPES.map((t) => (
          <option key={t} value={t}>
            {TYPE_LABELS[t]}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="field-hint">
        {value === 'MARKETING'
          ? 'Gets an unsubscribe footer; skipped for unsubscribed contacts.'
          : value === 'TRANSACTIONAL'
            ? 'Receipts, resets: sent whatever the subscription.'
            : 'Sent as written, without footer.'}
      </p>
      {error && <p className="field-error">{error}</p>}
    </div>
  );
}

function DescriptionField({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  const id = useId();
  return (
    <div className="field span-all">
      <label htmlFor={id}>Description</label>
      <textarea
        id={id}
        rows={2}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        aria-invalid={error ? true : undefined}
      />
      <p id={`${id}-hint`} className="field-hint">
        An internal note; recipients never see it.
      </p>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

function UsageNote({ projectId, id }: { projectId: string; id: string }) {
  const usage = useTemplateUsage(projectId, id);
  if (!usage.data) return null;
  return (
    <p className="muted small usage-note">
      <span className="visually-hidden">Usage: </span>
      {usageSentence(usage.data)}
    </p>
  );
}
