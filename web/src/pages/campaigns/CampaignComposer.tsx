import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { Campaign, Contact, Template } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import { ApiError, errorMessage, fieldMessages, formMessage } from '../../api/errors.js';
import { usePreview, useTemplatesPage, useUploadImage } from '../../api/templates.js';
import { Alert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';
import { SelectField } from '../../components/SelectField.js';
import { useLeaveGuard } from '../../components/useLeaveGuard.js';
import { formatDateTime } from '../../format/dates.js';
import { BodyField } from '../templates/BodyField.js';
import { EmptyPlaceholders, useEmptyPlaceholders } from '../templates/EmptyPlaceholders.js';
import { PreviewPanel } from '../templates/PreviewPanel.js';
import { SpamCheckPanel } from '../templates/SpamCheckPanel.js';
import { TrackingSelects } from '../templates/TrackingSelects.js';
import { renderErrors } from '../templates/template-form.js';
import { TEMPLATE_TYPES, TYPE_LABELS } from '../templates/template-list.js';
import { useDebounced } from '../templates/useDebounced.js';
import { useTemplateCompletions } from '../templates/useTemplateCompletions.js';
import { AbTestCard } from './AbTestCard.js';
import { AudienceCard, useAudienceCount } from './AudienceCard.js';
import { abErrors } from './ab-test-form.js';
import { CampaignActions } from './CampaignActions.js';
import {
  type CampaignForm,
  campaignPayload,
  conditionIncomplete,
  EMPTY_FORM,
  FORM_FIELDS,
  formOf,
  isDirty,
  missingForSave,
  withTemplate,
} from './campaign-form.js';
import { badgeClass, hasUnsubscribeLink, STATUS_WORDS } from './campaign-words.js';
import { useAudiencePreviewContacts, useSaveCampaign } from './campaigns-api.js';
import { SendMenu } from './SendMenu.js';
import { SendTimingCard } from './SendTimingCard.js';
import { timingErrors } from './send-timing.js';

const AUTOSAVE_MS = 800;
const PREVIEW_DEBOUNCE_MS = 300;

/**
 * The composer of a DRAFT or SCHEDULED campaign (or of a new one): the audience first, then the
 * content, with a live preview as one contact of the audience. Changes save themselves; the first
 * save creates the campaign once it has what the API requires.
 */
export function CampaignComposer({ projectId, campaign }: { projectId: string; campaign: Campaign | null }) {
  const navigate = useNavigate();
  const [saved, setSaved] = useState<CampaignForm>(() => (campaign ? formOf(campaign) : EMPTY_FORM));
  const [form, setForm] = useState<CampaignForm>(saved);
  const set = (patch: Partial<CampaignForm>) => setForm((f) => ({ ...f, ...patch }));
  const save = useSaveCampaign(projectId);
  // The id of the campaign the first save created, known before the address and the props follow.
  const [createdId, setCreatedId] = useState<string | null>(null);
  const id = campaign?.id ?? createdId;
  const dirty = isDirty(form, saved);
  const missing = missingForSave(form);
  const audience = useAudienceCount(form);

  // Autosave: once typing pauses, what is in the form is sent; what changed meanwhile is sent next.
  // One save at a time, until its answer is taken in: the mutation reports itself done a render
  // before its callbacks run, and a second create in that gap would make a second campaign.
  const inFlight = useRef(false);
  const latest = useRef({ form, saved, id });
  latest.current = { form, saved, id };
  const settled = useDebounced(form, AUTOSAVE_MS);
  useEffect(() => {
    if (inFlight.current || !isDirty(settled, saved) || missingForSave(settled).length > 0) return;
    if (save.isError && save.variables && sameForm(save.variables.input, settled)) return;
    const sent = settled;
    inFlight.current = true;
    save.mutate(
      { id, input: campaignPayload(sent) },
      {
        onSuccess: (stored) => {
          // Cleared before the state it goes with, so the render that follows may save what came since.
          inFlight.current = false;
          setSaved(sent);
          if (!id) {
            setCreatedId(stored.id);
            navigate(`/campaigns/${stored.id}`, { replace: true });
          }
        },
        onError: () => {
          inFlight.current = false;
        },
      },
    );
  }, [settled, saved, id, save, navigate]);

  // Leaving the page: the browser asks while changes are unsaved; leaving within the dashboard saves them.
  useLeaveGuard(dirty || save.isPending);
  useEffect(
    () => () => {
      const last = latest.current;
      if (last.id && !inFlight.current && isDirty(last.form, last.saved) && missingForSave(last.form).length === 0)
        void api('PUT', `/campaigns/${last.id}`, { projectId, body: campaignPayload(last.form) });
    },
    [projectId],
  );

  const saveFields = save.error instanceof ApiError ? fieldMessages(save.error.fieldErrors) : {};
  if (save.error instanceof ApiError && save.error.status === 403) saveFields.from = save.error.message;
  const saveMessage =
    save.error instanceof ApiError && save.error.status === 403
      ? null
      : formMessage(save.error, [
          ...FORM_FIELDS,
          'segmentId',
          ...Object.keys(saveFields).filter(
            (f) => f.startsWith('audienceCondition') || f.startsWith('abTest.variants'),
          ),
        ]);

  const saveState = save.isPending
    ? 'Saving…'
    : save.isError
      ? 'Not saved: fix what is marked below'
      : missing.length > 0
        ? `Not saved yet: it needs ${missing.join(', ')}`
        : dirty
          ? 'Unsaved changes'
          : 'All changes saved';
  const blockedBy = !id
    ? 'Send once the campaign is saved.'
    : conditionIncomplete(form)
      ? 'Finish the audience’s condition first.'
      : dirty || save.isPending
        ? 'Saving first…'
        : null;

  return (
    <section className="stack campaign-composer" aria-labelledby="campaign-title">
      <div className="page-heading-row">
        <div className="page-heading">
          <Link to="/campaigns" className="back-link">
            ← Campaigns
          </Link>
          <h1 id="campaign-title">{campaign ? saved.name || 'Untitled' : 'New campaign'}</h1>
          <p className="muted small" aria-live="polite" data-testid="save-state">
            {campaign && (
              <span className={badgeClass(STATUS_WORDS[campaign.status].tone)}>
                {STATUS_WORDS[campaign.status].label}
              </span>
            )}{' '}
            {saveState}
          </p>
        </div>
        {campaign && (
          <div className="editor-actions">
            <CampaignActions projectId={projectId} campaign={campaign} />
            <SendMenu projectId={projectId} campaign={campaign} audience={audience.estimate} blockedBy={blockedBy} />
          </div>
        )}
      </div>
      {campaign?.status === 'SCHEDULED' && campaign.scheduledFor && (
        <p className="notice" role="status">
          Scheduled for <strong>{formatDateTime(campaign.scheduledFor)}</strong> your time. Changes made until then are
          sent.
        </p>
      )}
      {saveMessage && <Alert>{saveMessage}</Alert>}

      <AudienceCard projectId={projectId} form={form} count={audience} onChange={set} errors={saveFields} />
      <SendTimingCard
        projectId={projectId}
        campaignId={id}
        savedAt={save.data?.updatedAt ?? campaign?.updatedAt}
        form={form}
        onChange={set}
        errors={{ ...saveFields, ...timingErrors(form) }}
      />
      <AbTestCard
        projectId={projectId}
        form={form}
        subject={form.subject}
        fromName={form.fromName}
        audience={
          audience.estimate && (form.type === 'MARKETING' ? audience.estimate.subscribed : audience.estimate.estimate)
        }
        onChange={set}
        errors={{ ...saveFields, ...abErrors(form) }}
      />

      <div className="editor-layout">
        <div className="stack editor-main">
          <ContentCard projectId={projectId} form={form} set={set} errors={saveFields} />
        </div>
        <aside className="stack editor-side" aria-label="Preview and spam check">
          <AudiencePreview projectId={projectId} form={form} />
        </aside>
      </div>
    </section>
  );
}

/** Whether a failed save was of this very form: it is not sent again until something changes. */
function sameForm(input: ReturnType<typeof campaignPayload>, form: CampaignForm) {
  return JSON.stringify(input) === JSON.stringify(campaignPayload(form));
}

function ContentCard({
  projectId,
  form,
  set,
  errors,
}: {
  projectId: string;
  form: CampaignForm;
  set: (patch: Partial<CampaignForm>) => void;
  errors: Record<string, string>;
}) {
  const { dataFields, completions } = useTemplateCompletions(projectId);
  const upload = useUploadImage(projectId);
  // The body field chooses blocks or code when it starts: a template's content starts it again.
  const [contentFrom, setContentFrom] = useState(0);
  const warnUnsubscribe = form.type === 'MARKETING' && !hasUnsubscribeLink(form.body);
  return (
    <div className="card stack">
      <h2>Content</h2>
      <FromTemplate
        projectId={projectId}
        onUse={(t) => {
          set(withTemplate(form, t));
          setContentFrom((n) => n + 1);
        }}
      />
      <div className="form-grid">
        <Field
          label="Campaign name"
          value={form.name}
          onChange={(e) => set({ name: e.target.value })}
          autoComplete="off"
          hint="For the dashboard; recipients never see it."
          error={errors.name}
        />
        <SelectField
          label="Type"
          value={form.type}
          options={TEMPLATE_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
          onChange={(type) => set({ type: type as CampaignForm['type'] })}
        />
        <Field
          className="span-all"
          label="Subject"
          value={form.subject}
          onChange={(e) => set({ subject: e.target.value })}
          autoComplete="off"
          error={errors.subject}
        />
        <Field
          label="From"
          type="email"
          value={form.from}
          onChange={(e) => set({ from: e.target.value })}
          autoComplete="off"
          spellCheck={false}
          placeholder="news@example.com"
          hint="An address at a verified domain."
          error={errors.from}
        />
        <Field
          label="From name"
          value={form.fromName}
          onChange={(e) => set({ fromName: e.target.value })}
          autoComplete="off"
          error={errors.fromName}
        />
        <Field
          label="Reply-to"
          type="email"
          value={form.replyTo}
          onChange={(e) => set({ replyTo: e.target.value })}
          autoComplete="off"
          spellCheck={false}
          error={errors.replyTo}
        />
        <TrackingSelects opens={form.trackOpens} clicks={form.trackClicks} onChange={(change) => set(change)} />
      </div>
      <BodyField
        key={contentFrom}
        value={{ body: form.body, bodySource: form.bodySource }}
        onChange={(next) => set(next)}
        fields={dataFields}
        completions={completions}
        bodyError={errors.body}
        errorLine={null}
        uploadImage={(file) => upload.mutateAsync(file)}
        uploading={upload.isPending}
        uploadError={upload.error}
      />
      {warnUnsubscribe && (
        <p className="notice" role="status">
          This marketing email has no unsubscribe link of its own, so a standard footer with one is added at the bottom.
          Put <code>{'{{ unsubscribeUrl }}'}</code> in a link where you want it instead.
        </p>
      )}
    </div>
  );
}

/** Copies a template's subject, body and type into the campaign (the sender too, if none is set yet). */
function FromTemplate({ projectId, onUse }: { projectId: string; onUse: (t: Template) => void }) {
  const templates = useTemplatesPage(projectId, { page: 1, pageSize: 100, sort: 'updatedAt', dir: 'desc' });
  const [chosen, setChosen] = useState('');
  const selectId = useId();
  const list = templates.data?.data ?? [];
  if (templates.isSuccess && list.length === 0) return null;
  const template = list.find((t) => t.id === chosen);
  return (
    <div className="from-template">
      <div className="field">
        <label htmlFor={selectId}>Start from a template</label>
        <select id={selectId} value={chosen} onChange={(e) => setChosen(e.target.value)}>
          <option value="">{templates.isPending ? 'Loading templates…' : 'Choose a template'}</option>
          {list.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <button type="button" className="button" disabled={!template} onClick={() => template && onUse(template)}>
        Use its content
      </button>
      {templates.isError && <p className="field-error">{errorMessage(templates.error)}</p>}
    </div>
  );
}

/** The preview, rendered by the sending renderer as one contact of the audience would receive it. */
function AudiencePreview({ projectId, form }: { projectId: string; form: CampaignForm }) {
  const contacts = useAudiencePreviewContacts(projectId, form.audienceType === 'SEGMENT' ? form.segmentId : null);
  const [chosen, setChosen] = useState<string>('');
  const selectId = useId();
  const list: Contact[] = contacts.data ?? [];
  const contact = list.find((c) => c.id === chosen) ?? list[0];
  const key = useDebounced(JSON.stringify({ s: form.subject, b: form.body, t: form.type }), PREVIEW_DEBOUNCE_MS);
  const content = useMemo(() => JSON.parse(key) as { s: string; b: string; t: CampaignForm['type'] }, [key]);
  const preview = usePreview(
    projectId,
    contact
      ? { subject: content.s, body: content.b, type: content.t, contactId: contact.id }
      : { subject: content.s, body: content.b, type: content.t, data: {} },
  );
  const last = useRef(preview.data);
  if (preview.data) last.current = preview.data;
  const previewed = useMemo(() => ({ subject: content.s, body: content.b, data: {} }), [content]);
  const recipient = useMemo(() => (contact ? { kind: 'contact' as const, contact } : null), [contact]);
  const { empty, emptyFor } = useEmptyPlaceholders(previewed, recipient);
  const errors = preview.error instanceof ApiError ? renderErrors(preview.error.fieldErrors) : {};
  const problem = preview.error
    ? errors.body || errors.subject
      ? `It does not render: ${errors.body ?? errors.subject}`
      : `The preview failed: ${errorMessage(preview.error)}`
    : null;

  return (
    <>
      <div className="card stack-tight">
        <div className="field">
          <label htmlFor={selectId}>Preview as</label>
          <select id={selectId} value={contact?.id ?? ''} onChange={(e) => setChosen(e.target.value)}>
            {list.length === 0 && (
              <option value="">{contacts.isPending ? 'Loading…' : 'No contact in the audience'}</option>
            )}
            {list.map((c) => (
              <option key={c.id} value={c.id}>
                {c.email}
              </option>
            ))}
          </select>
          <p className="field-hint">
            {form.audienceType === 'FILTERED'
              ? 'Contacts of the project (the condition is not applied here).'
              : 'The first contacts of the audience.'}
          </p>
        </div>
      </div>
      <PreviewPanel
        preview={preview.data ?? last.current}
        updating={preview.isFetching}
        problem={problem}
        empty={emptyFor ? <EmptyPlaceholders placeholders={empty} recipient={emptyFor} /> : null}
      />
      <SpamCheckPanel
        projectId={projectId}
        form={form}
        recipient={contact ? { contactId: contact.id } : { data: {} }}
      />
    </>
  );
}
