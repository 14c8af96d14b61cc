import { useId, useMemo, useState } from 'react';
import type { FilterCondition, StepType } from '../../../../src/api.js';
import { WEBHOOK_METHODS } from '../../../../src/domain/webhook-request.js';
import { DURATION_UNITS, type Duration } from '../../../../src/domain/workflows/step-types.js';
import { useEventNames } from '../../api/events.js';
import { usePreview, useTemplate, useTemplatesPage } from '../../api/templates.js';
import { Field } from '../../components/Field.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { DataEditor } from '../contacts/DataEditor.js';
import { type DataRow, dataChange, fieldTypesByKey, rowsFromData } from '../contacts/data-editor.js';
import { TopicSelect } from '../templates/TopicSelect.js';
import { AmountAndUnit } from './AmountAndUnit.js';
import { ConditionEditor, emptyCondition } from './ConditionEditor.js';
import { DELAY_KIND_LABELS, type DelayKind, delayConfigOf, delayErrors, delayKindOf } from './step-views.js';
import { useWorkflowFields } from './workflows-api.js';

type Config = Record<string, unknown>;

/** What a new step of each type starts with in the form. */
export function defaultConfig(type: StepType): Config {
  switch (type) {
    case 'SEND_EMAIL':
      return { templateId: '' };
    case 'DELAY':
      return delayConfigOf('duration');
    case 'WAIT_FOR_EVENT':
      return { event: '', timeout: { amount: 1, unit: 'days' } };
    case 'CONDITION':
      return { condition: emptyCondition() };
    case 'WEBHOOK':
      return { url: '', method: 'POST', headers: {} };
    case 'UPDATE_CONTACT':
      return { data: {} };
    case 'EXIT':
      return {};
  }
}

interface ConfigFormProps {
  type: StepType;
  value: Config;
  onChange: (next: Config) => void;
  /** The server's field errors, by field (`config.templateId`). */
  errors: Record<string, string>;
  /** The workflow's trigger event: a condition may filter on its data. */
  triggerEvent: string | null;
}

/** The topic a step's marketing email is about; none leaves `topicId` out (the template's topic applies). */
function StepTopic({ value, onChange, error }: { value: Config; onChange: (next: Config) => void; error?: string }) {
  const project = useCurrentProject();
  return (
    <TopicSelect
      projectId={project.id}
      label="Topic"
      value={String(value.topicId ?? '')}
      onChange={(topicId) => {
        const { topicId: _, ...rest } = value;
        onChange(topicId ? { ...rest, topicId } : rest);
      }}
      error={error}
    />
  );
}

/** The config of one step as a form: each type's own inputs. */
export function StepConfigForm({ type, value, onChange, errors, triggerEvent }: ConfigFormProps) {
  const error = (field: string) =>
    Object.entries(errors).find(([f]) => f === `config.${field}` || f.startsWith(`config.${field}.`))?.[1];
  switch (type) {
    case 'SEND_EMAIL':
      return (
        <>
          <TemplatePicker
            value={String(value.templateId ?? '')}
            onChange={(templateId) => onChange({ ...value, templateId })}
            error={error('templateId')}
          />
          <StepTopic value={value} onChange={onChange} error={error('topicId')} />
        </>
      );
    case 'DELAY':
      return <DelayForm value={value} onChange={onChange} errors={errors} />;
    case 'WAIT_FOR_EVENT':
      return (
        <>
          <EventPicker
            value={String(value.event ?? '')}
            onChange={(event) => onChange({ ...value, event })}
            error={error('event')}
          />
          <DurationInput
            legend="Give up after"
            value={value.timeout as Duration}
            onChange={(timeout) => onChange({ ...value, timeout })}
            error={error('timeout')}
          />
        </>
      );
    case 'CONDITION':
      return (
        <>
          <ConditionEditor
            triggerEvent={triggerEvent}
            value={value.condition as FilterCondition}
            onChange={(condition) => onChange({ condition })}
            errors={errors}
          />
          {/* Faults within the tree show beside their filter; this is one about the whole condition. */}
          {errors['config.condition'] && <p className="field-error">{errors['config.condition']}</p>}
        </>
      );
    case 'WEBHOOK':
      return <WebhookForm value={value} onChange={onChange} error={error} />;
    case 'UPDATE_CONTACT':
      return <UpdateContactForm value={value} onChange={onChange} error={error('data') ?? errors.config} />;
    case 'EXIT':
      return <p className="muted">The execution ends here, as exited.</p>;
  }
}

/** A duration, or a time of day in the contact's time zone. */
function DelayForm({
  value,
  onChange,
  errors,
}: {
  value: Config;
  onChange: (next: Config) => void;
  errors: Record<string, string>;
}) {
  const id = useId();
  const kind = delayKindOf(value);
  const error = delayErrors(errors);
  const until = value.until as { time?: string } | undefined;
  return (
    <>
      <fieldset className="plain-fieldset">
        <legend className="section-legend">Wait</legend>
        <div className="radio-row">
          {(['duration', 'time'] as DelayKind[]).map((k) => (
            <label key={k}>
              <input
                type="radio"
                name={`${id}-kind`}
                checked={kind === k}
                onChange={() => onChange(delayConfigOf(k))}
              />{' '}
              {DELAY_KIND_LABELS[k]}
            </label>
          ))}
        </div>
        {error.whole && <p className="field-error">{error.whole}</p>}
      </fieldset>
      {kind === 'time' ? (
        <Field
          label="Time of day"
          type="time"
          required
          hint="In the contact’s time zone: its timezone field, else its country’s or locale’s, else the project’s default zone (Settings)."
          value={until?.time ?? ''}
          error={error.time}
          onChange={(e) => onChange({ until: { time: e.target.value } })}
        />
      ) : (
        <DurationInput
          legend="Wait for"
          value={value as unknown as Duration}
          onChange={(d) => onChange({ ...d })}
          error={error.duration}
        />
      )}
    </>
  );
}

function TemplatePicker({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (id: string) => void;
  error: string | undefined;
}) {
  const project = useCurrentProject();
  const id = useId();
  const templates = useTemplatesPage(project.id, { page: 1, pageSize: 100, sort: 'name', dir: 'asc' });
  const template = useTemplate(project.id, value || undefined);
  const preview = usePreview(
    project.id,
    template.data ? { subject: template.data.subject, body: template.data.body, type: template.data.type } : null,
  );
  return (
    <div className="stack-tight">
      <div className="field">
        <label htmlFor={id}>Template</label>
        <select
          id={id}
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => onChange(e.target.value)}
        >
          <option value="">Choose a template…</option>
          {(templates.data?.data ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        {error && (
          <p id={`${id}-error`} className="field-error">
            {error}
          </p>
        )}
      </div>
      {preview.data && (
        <figure className="step-preview">
          <figcaption className="small">
            <span className="muted">Subject:</span> {preview.data.subject}
          </figcaption>
          <iframe className="preview-frame" title="Template preview" sandbox="" srcDoc={preview.data.html} />
        </figure>
      )}
    </div>
  );
}

export function DurationInput({
  legend,
  value,
  onChange,
  error,
}: {
  legend: string;
  value: Duration;
  onChange: (d: Duration) => void;
  error: string | undefined;
}) {
  return (
    <fieldset className="plain-fieldset">
      <legend className="section-legend">{legend}</legend>
      <AmountAndUnit
        amount={value.amount}
        unit={value.unit}
        units={DURATION_UNITS}
        invalid={!!error}
        onChange={onChange}
      />
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}

/** An event name, typed or picked from the project's events. */
export function EventPicker({
  value,
  onChange,
  error,
  label = 'Event',
}: {
  value: string;
  onChange: (name: string) => void;
  error: string | undefined;
  label?: string;
}) {
  const project = useCurrentProject();
  const names = useEventNames(project.id);
  const listId = useId();
  return (
    <>
      <Field label={label} value={value} list={listId} error={error} onChange={(e) => onChange(e.target.value)} />
      <datalist id={listId}>
        {(names.data?.names ?? []).map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
    </>
  );
}

function WebhookForm({
  value,
  onChange,
  error,
}: {
  value: Config;
  onChange: (next: Config) => void;
  error: (field: string) => string | undefined;
}) {
  const id = useId();
  const headers = Object.entries((value.headers as Record<string, string>) ?? {});
  const [bodyText, setBodyText] = useState(value.body === undefined ? '' : JSON.stringify(value.body, null, 2));
  const [bodyProblem, setBodyProblem] = useState<string | null>(null);
  const setHeaders = (rows: [string, string][]) => onChange({ ...value, headers: Object.fromEntries(rows) });
  return (
    <>
      <Field
        label="URL"
        type="url"
        value={String(value.url ?? '')}
        error={error('url')}
        onChange={(e) => onChange({ ...value, url: e.target.value })}
      />
      <div className="field">
        <label htmlFor={`${id}-method`}>Method</label>
        <select
          id={`${id}-method`}
          value={String(value.method ?? 'POST')}
          onChange={(e) => onChange({ ...value, method: e.target.value })}
        >
          {WEBHOOK_METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </div>
      <fieldset className="plain-fieldset">
        <legend className="section-legend">Headers</legend>
        {headers.map(([name, v], i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a header row is its place; names may be empty or repeat while typed
          <div className="duration-row" key={i}>
            <Field
              label={`Header ${i + 1} name`}
              value={name}
              onChange={(e) => setHeaders(headers.map((h, j) => (j === i ? [e.target.value, h[1]] : h)))}
            />
            <Field
              label={`Header ${i + 1} value`}
              value={v}
              onChange={(e) => setHeaders(headers.map((h, j) => (j === i ? [h[0], e.target.value] : h)))}
            />
            <button
              type="button"
              className="button button-small"
              onClick={() => setHeaders(headers.filter((_, j) => j !== i))}
            >
              Remove header {i + 1}
            </button>
          </div>
        ))}
        <button type="button" className="button button-small" onClick={() => setHeaders([...headers, ['', '']])}>
          Add header
        </button>
        {error('headers') && <p className="field-error">{error('headers')}</p>}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-body`}>Body (JSON; strings may use Liquid such as {'{{ email }}'})</label>
        <textarea
          id={`${id}-body`}
          className="code-textarea"
          rows={5}
          value={bodyText}
          placeholder="Empty: the execution is sent"
          aria-invalid={bodyProblem || error('body') ? true : undefined}
          onChange={(e) => {
            setBodyText(e.target.value);
            if (e.target.value.trim() === '') {
              setBodyProblem(null);
              const { body: _, ...rest } = value;
              onChange(rest);
              return;
            }
            try {
              onChange({ ...value, body: JSON.parse(e.target.value) });
              setBodyProblem(null);
            } catch {
              setBodyProblem('Not valid JSON yet');
            }
          }}
        />
        {(bodyProblem ?? error('body')) && <p className="field-error">{bodyProblem ?? error('body')}</p>}
      </div>
    </>
  );
}

function UpdateContactForm({
  value,
  onChange,
  error,
}: {
  value: Config;
  onChange: (next: Config) => void;
  error: string | undefined;
}) {
  const project = useCurrentProject();
  const fields = useWorkflowFields(project.id);
  const types = useMemo(() => fieldTypesByKey(fields.data?.fields ?? []), [fields.data]);
  const [rows, setRows] = useState<DataRow[]>(() => rowsFromData((value.data as Config) ?? {}, types));
  const change = dataChange({}, rows);
  const id = useId();
  const apply = (next: DataRow[]) => {
    setRows(next);
    const { data } = dataChange({}, next);
    onChange({ ...value, data });
  };
  return (
    <>
      <DataEditor rows={rows} onChange={apply} errors={change.errors} types={types} caption="Fields to set" />
      <div className="field">
        <label htmlFor={`${id}-sub`}>Subscription</label>
        <select
          id={`${id}-sub`}
          value={value.subscribed === undefined ? '' : String(value.subscribed)}
          onChange={(e) => {
            const { subscribed: _, ...rest } = value;
            onChange(e.target.value === '' ? rest : { ...rest, subscribed: e.target.value === 'true' });
          }}
        >
          <option value="">Leave as it is</option>
          <option value="true">Subscribe</option>
          <option value="false">Unsubscribe</option>
        </select>
      </div>
      {error && <p className="field-error">{error}</p>}
    </>
  );
}
