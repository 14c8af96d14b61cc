import { type FormEvent, useEffect, useState } from 'react';
import type { Form } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { useTopicList } from '../../api/topics.js';
import { Alert } from '../../components/Alert.js';
import { CopyButton } from '../../components/CopyButton.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field, FieldNotes, useFieldNotes } from '../../components/Field.js';
import { SelectField } from '../../components/SelectField.js';
import { useTemplateOptions } from '../workflows/workflows-api.js';
import { type FormInput, useCreateForm, useDeleteForm, useForm, useFormPreview, useUpdateForm } from './forms-api.js';

/** Creates a form, or edits one (with its embed code to copy) when `form` is given. */
export function FormDialog({
  projectId,
  form,
  open,
  onClose,
}: {
  projectId: string;
  form?: Form;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={open}
      title={form ? `Edit ${form.name}` : 'New signup form'}
      onClose={onClose}
      className="dialog-wide"
    >
      {form && <EmbedCode projectId={projectId} form={form} />}
      <FormEditor projectId={projectId} form={form} onClose={onClose} />
    </Dialog>
  );
}

function EmbedCode({ projectId, form }: { projectId: string; form: Form }) {
  const detail = useForm(projectId, form.id);
  return (
    <div className="stack form-embed">
      <p>
        Its page: <a href={form.url}>{form.url}</a>
      </p>
      {detail.data ? (
        <div className="form-embed-row">
          <span>Code to paste into your site (a form and a small script):</span>
          <CopyButton value={detail.data.embedCode} label={`Copy the embed code of ${form.name}`} />
        </div>
      ) : (
        <p className="muted">{detail.isError ? 'The embed code could not be loaded.' : 'Loading the embed code…'}</p>
      )}
    </div>
  );
}

interface FieldRow {
  key: string;
  label: string;
  type: string;
  required: boolean;
}

const TYPES = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'date', label: 'Date' },
  { value: 'boolean', label: 'Checkbox' },
];

/** The English text of a text per language; the dashboard edits English and keeps the other languages. */
const english = (texts: Record<string, string> | undefined) => texts?.en ?? '';
const withEnglish = (texts: Record<string, string> | undefined, value: string) => {
  const { en: _, ...others } = texts ?? {};
  return value.trim() ? { ...others, en: value.trim() } : others;
};

function FormEditor({ projectId, form, onClose }: { projectId: string; form?: Form; onClose: () => void }) {
  const create = useCreateForm(projectId);
  const update = useUpdateForm(projectId);
  const remove = useDeleteForm(projectId);
  const saving = form ? update : create;
  const [name, setName] = useState(form?.name ?? '');
  const [senderEmail, setSenderEmail] = useState(form?.senderEmail ?? '');
  const [doubleOptIn, setDoubleOptIn] = useState(form?.doubleOptIn ?? true);
  const [title, setTitle] = useState(english(form?.title));
  const [consent, setConsent] = useState(english(form?.consentText));
  const [success, setSuccess] = useState(english(form?.successMessage));
  const [redirectUrl, setRedirectUrl] = useState(form?.redirectUrl ?? '');
  const [origins, setOrigins] = useState((form?.allowedOrigins ?? []).join('\n'));
  const [templateId, setTemplateId] = useState(form?.confirmationTemplateId ?? '');
  const templates = useTemplateOptions(projectId);
  const [offered, setOffered] = useState<string[]>(form?.topics ?? []);
  const topics = useTopicList(projectId);
  const [fields, setFields] = useState<FieldRow[]>(
    (form?.fields ?? []).map((f) => ({ key: f.key, label: english(f.label), type: f.type, required: f.required })),
  );
  const originNotes = useFieldNotes(
    'One per line, such as https://www.example.com: the sites that may show this form.',
    undefined,
  );

  const server = saving.error instanceof ApiError ? fieldMessages(saving.error.fieldErrors) : {};
  const placed = ['name', 'senderEmail', 'redirectUrl', 'confirmationTemplateId'];
  const message = formMessage(saving.error, placed);

  const setField = (i: number, change: Partial<FieldRow>) =>
    setFields((rows) => rows.map((row, j) => (j === i ? { ...row, ...change } : row)));

  const input = (): FormInput => ({
    name: name.trim(),
    fields: fields.map((f, i) => ({
      key: f.key.trim(),
      type: f.type,
      required: f.required,
      label: withEnglish(form?.fields[i]?.label, f.label),
    })),
    doubleOptIn,
    senderEmail: senderEmail.trim() || null,
    title: withEnglish(form?.title, title),
    consentText: withEnglish(form?.consentText, consent),
    successMessage: withEnglish(form?.successMessage, success),
    redirectUrl: redirectUrl.trim() || null,
    allowedOrigins: origins
      .split('\n')
      .map((o) => o.trim())
      .filter(Boolean),
    confirmationTemplateId: templateId || null,
    topics: offered,
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = input();
    if (form) update.mutate({ id: form.id, ...body }, { onSuccess: onClose });
    else create.mutate(body, { onSuccess: onClose });
  };

  const templateOptions = [
    { value: '', label: 'Built-in, in the visitor’s language' },
    ...(templates.data?.data ?? []).map((t) => ({ value: t.id, label: t.name })),
  ];

  return (
    <div className="form-builder">
      <form className="stack" onSubmit={submit} noValidate>
        {message && <Alert>{message}</Alert>}
        <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} error={server.name} required />
        <label className="check-row">
          <input type="checkbox" checked={doubleOptIn} onChange={(e) => setDoubleOptIn(e.target.checked)} />
          Double opt-in: subscribe only after a click in a confirmation email
        </label>
        <Field
          label="Confirmation email sender"
          type="email"
          placeholder="news@example.com"
          hint="An address at a verified domain of this project; needed for double opt-in."
          value={senderEmail}
          onChange={(e) => setSenderEmail(e.target.value)}
          error={server.senderEmail}
        />
        <SelectField
          label="Confirmation email"
          hint="A template of your own must use {{ confirmationUrl }}, the link that confirms."
          value={templateId}
          options={templateOptions}
          onChange={setTemplateId}
          error={server.confirmationTemplateId}
        />
        <Field label="Heading (optional)" value={title} onChange={(e) => setTitle(e.target.value)} />
        <Field
          label="Consent text (optional)"
          hint="Shown above the button, and kept with each confirmation."
          value={consent}
          onChange={(e) => setConsent(e.target.value)}
        />
        <Field label="Message after sending (optional)" value={success} onChange={(e) => setSuccess(e.target.value)} />
        <Field
          label="Redirect after sending (optional)"
          type="url"
          placeholder="https://www.example.com/thanks"
          value={redirectUrl}
          onChange={(e) => setRedirectUrl(e.target.value)}
          error={server.redirectUrl}
        />
        <div className="field">
          <label htmlFor={originNotes.id}>Sites that may embed it</label>
          <textarea
            id={originNotes.id}
            rows={2}
            value={origins}
            onChange={(e) => setOrigins(e.target.value)}
            aria-describedby={originNotes.describedBy}
          />
          <FieldNotes {...originNotes} />
        </div>
        {(topics.data?.length ?? 0) > 0 && (
          <fieldset className="plain-fieldset stack-tight">
            <legend className="field-label">Topics offered</legend>
            <p className="field-hint">Each is a checkbox on the form, unticked until the visitor ticks it.</p>
            {topics.data!.map((t) => (
              <label key={t.id} className="check-row">
                <input
                  type="checkbox"
                  checked={offered.includes(t.id)}
                  onChange={(e) =>
                    setOffered((ids) => (e.target.checked ? [...ids, t.id] : ids.filter((id) => id !== t.id)))
                  }
                />
                {t.name}
              </label>
            ))}
            {server.topics && <p className="field-error">{server.topics}</p>}
          </fieldset>
        )}
        <fieldset className="plain-fieldset stack">
          <legend className="field-label">Fields besides the email address</legend>
          {fields.map((f, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own while edited.
            <div key={i} className="form-field-row">
              <Field
                label={`Label of field ${i + 1}`}
                value={f.label}
                onChange={(e) => setField(i, { label: e.target.value })}
                error={server[`fields.${i}.label`]}
              />
              <Field
                label={`Key of field ${i + 1}`}
                hint="Stored under this name in the contact’s data."
                value={f.key}
                onChange={(e) => setField(i, { key: e.target.value })}
                error={server[`fields.${i}.key`]}
              />
              <SelectField
                label={`Type of field ${i + 1}`}
                value={f.type}
                options={TYPES}
                onChange={(type) => setField(i, { type })}
              />
              <label className="check-row">
                <input
                  type="checkbox"
                  checked={f.required}
                  onChange={(e) => setField(i, { required: e.target.checked })}
                />
                Required
              </label>
              <button
                type="button"
                className="button button-small"
                onClick={() => setFields((rows) => rows.filter((_, j) => j !== i))}
              >
                Remove field {i + 1}
              </button>
            </div>
          ))}
          <button
            type="button"
            className="button"
            onClick={() => setFields((rows) => [...rows, { key: '', label: '', type: 'string', required: false }])}
          >
            Add a field
          </button>
        </fieldset>
        <DialogActions
          busy={saving.isPending}
          label={form ? 'Save changes' : 'Create form'}
          busyLabel="Saving…"
          onCancel={onClose}
        />
        {form && (
          <button
            type="button"
            className="button button-danger form-delete"
            disabled={remove.isPending}
            onClick={() => remove.mutate(form.id, { onSuccess: onClose })}
          >
            {remove.isPending ? 'Deleting…' : 'Delete this form'}
          </button>
        )}
      </form>
      <LivePreview projectId={projectId} input={{ ...input(), ...(form ? { id: form.id } : {}) }} />
    </div>
  );
}

const KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * What the preview shows, from a form perhaps half typed: the settings it does not show are left
 * out, and a field whose key is not valid yet (or taken) is shown under a stand-in key.
 */
function previewInput(input: FormInput & { id?: string }) {
  const seen = new Set<string>();
  const fields = input.fields.map((f, i) => {
    const key = KEY.test(f.key) && !seen.has(f.key) ? f.key : `field${i + 1}`;
    seen.add(key);
    return { ...f, key, label: Object.keys(f.label).length > 0 ? f.label : { en: `Field ${i + 1}` } };
  });
  return {
    ...(input.id ? { id: input.id } : {}),
    name: input.name,
    doubleOptIn: input.doubleOptIn,
    fields,
    title: input.title,
    consentText: input.consentText,
    successMessage: input.successMessage,
  };
}

/** The value, once it has stopped changing for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `value`, compared by content.
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [key, ms]);
  return settled;
}

/**
 * The hosted page as it will look, rendered by the server from the form being edited (the same
 * template as /f/<id>), in a frame that runs no script; and the code to paste, with a copy button.
 */
function LivePreview({ projectId, input }: { projectId: string; input: FormInput & { id?: string } }) {
  const preview = useFormPreview(projectId, useSettled(previewInput(input), 300));
  return (
    <section className="stack form-preview" aria-labelledby="form-preview-title">
      <h3 id="form-preview-title">Preview</h3>
      {preview.data ? (
        <>
          <iframe
            className="form-preview-frame"
            title="Preview of the hosted page"
            sandbox=""
            srcDoc={preview.data.html}
          />
          <div className="form-embed-row">
            <span>The code to paste, as previewed:</span>
            <CopyButton value={preview.data.embedCode} label="Copy the embed code as previewed" />
          </div>
          <textarea
            className="form-preview-code"
            aria-label="Embed code as previewed"
            readOnly
            rows={6}
            value={preview.data.embedCode}
          />
        </>
      ) : (
        <p className="muted">{preview.isError ? 'The preview could not be made.' : 'Making the preview…'}</p>
      )}
    </section>
  );
}
