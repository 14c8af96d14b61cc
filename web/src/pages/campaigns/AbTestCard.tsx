import { useId } from 'react';
import { errorMessage } from '../../api/errors.js';
import { useTemplatesPage } from '../../api/templates.js';
import { Field, FieldNotes, useFieldNotes } from '../../components/Field.js';
import {
  AB_LIMITS,
  type AbMetric,
  type AbMode,
  type AbTestForm,
  abSummary,
  METRIC_CHOICES,
  type VariantForm,
  variantLetter,
} from './ab-test-form.js';

const MODE_CHOICES: [AbMode, string][] = [
  ['winner', 'Test on a share of the audience, then send the winner to the rest'],
  ['split', 'Split the whole audience evenly, no winner'],
];

/**
 * An A/B test of the campaign: variants of the subject and the sender's name, tested on a share of
 * the audience (the winner by the chosen measure goes to the rest after the wait) or split evenly.
 */
export function AbTestCard({
  projectId,
  form,
  subject,
  fromName,
  audience,
  onChange,
  errors,
}: {
  projectId: string;
  form: AbTestForm;
  /** The campaign's own subject and sender name: what an empty variant field keeps. */
  subject: string;
  fromName: string;
  audience: number | undefined;
  onChange: (patch: Partial<AbTestForm>) => void;
  /** The form's own checks and the last save's field errors, by API field. */
  errors: Record<string, string>;
}) {
  const name = useId();
  const metricId = useId();
  const setVariant = (i: number, patch: Partial<VariantForm>) =>
    onChange({ abVariants: form.abVariants.map((v, j) => (j === i ? { ...v, ...patch } : v)) });
  const { variants, testPercent, waitHours } = AB_LIMITS;

  return (
    <section className="card stack" aria-labelledby={`${name}-title`}>
      <div className="stack-tight">
        <h2 id={`${name}-title`}>A/B test</h2>
        <label className="check-row">
          <input type="checkbox" checked={form.abOn} onChange={(e) => onChange({ abOn: e.target.checked })} />
          <span>Test variants of this email before sending it to everyone</span>
        </label>
      </div>
      {form.abOn && (
        <>
          <ol className="plain-list stack-tight ab-variants">
            {form.abVariants.map((v, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a variant is its letter, its place in the list
              <li key={i} className="ab-variant">
                <fieldset className="plain-fieldset">
                  <legend className="section-legend">Variant {variantLetter(i)}</legend>
                  <div className="ab-variant-fields">
                    <Field
                      label="Subject"
                      value={v.subject}
                      placeholder={subject}
                      onChange={(e) => setVariant(i, { subject: e.target.value })}
                      autoComplete="off"
                      hint={i === 0 && !v.subject ? 'Empty: the campaign’s subject.' : undefined}
                      error={errors[`abTest.variants.${i}.subject`] ?? errors[`abTest.variants.${i}`]}
                    />
                    <Field
                      label="From name"
                      value={v.fromName}
                      placeholder={fromName}
                      onChange={(e) => setVariant(i, { fromName: e.target.value })}
                      autoComplete="off"
                      error={errors[`abTest.variants.${i}.fromName`]}
                    />
                  </div>
                  <VariantContent
                    projectId={projectId}
                    variant={v}
                    onChange={(patch) => setVariant(i, patch)}
                    error={errors[`abTest.variants.${i}.body`]}
                  />
                  {form.abVariants.length > variants.min && (
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => onChange({ abVariants: form.abVariants.filter((_, j) => j !== i) })}
                    >
                      Remove variant {variantLetter(i)}
                    </button>
                  )}
                </fieldset>
              </li>
            ))}
          </ol>
          {errors['abTest.variants'] && <p className="field-error">{errors['abTest.variants']}</p>}
          {form.abVariants.length < variants.max && (
            <div>
              <button
                type="button"
                className="button"
                onClick={() => onChange({ abVariants: [...form.abVariants, { subject: '', fromName: '' }] })}
              >
                Add variant {variantLetter(form.abVariants.length)}
              </button>
            </div>
          )}
          <fieldset className="plain-fieldset stack-tight">
            <legend className="section-legend">Who gets the variants</legend>
            <div className="radio-row">
              {MODE_CHOICES.map(([mode, title]) => (
                <label key={mode}>
                  <input
                    type="radio"
                    name={name}
                    checked={form.abMode === mode}
                    onChange={() => onChange({ abMode: mode })}
                  />
                  <span>{title}</span>
                </label>
              ))}
            </div>
            {errors['abTest.testPercent'] && form.abMode === 'split' && (
              <p className="field-error">{errors['abTest.testPercent']}</p>
            )}
          </fieldset>
          {form.abMode === 'winner' && (
            <div className="form-grid">
              <Field
                label="Test share (%)"
                type="number"
                min={testPercent.min}
                max={testPercent.max}
                value={form.abTestPercent}
                onChange={(e) => onChange({ abTestPercent: e.target.value })}
                hint={`${testPercent.min} to ${testPercent.max} % of the audience, drawn at random, an equal slice per variant.`}
                error={errors['abTest.testPercent']}
              />
              <div className="field">
                <label htmlFor={metricId}>The winner has the best</label>
                <select
                  id={metricId}
                  value={form.abMetric}
                  onChange={(e) => onChange({ abMetric: e.target.value as AbMetric })}
                >
                  {METRIC_CHOICES.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
                <p className="field-hint">Opens by mail providers’ image proxies right after delivery are left out.</p>
              </div>
              <Field
                label="Wait before choosing (hours)"
                type="number"
                min={waitHours.min}
                max={waitHours.max}
                value={form.abWaitHours}
                onChange={(e) => onChange({ abWaitHours: e.target.value })}
                hint="From 1 hour to 7 days; you can pick the winner yourself at any time."
                error={errors['abTest.waitHours']}
              />
            </div>
          )}
          <p className="muted small" aria-live="polite" data-testid="ab-summary">
            {abSummary(form, audience)}
          </p>
        </>
      )}
    </section>
  );
}

const OWN = 'own';

/**
 * What a variant's body is: the campaign's, or a template's content copied into it (a variant whose
 * body was set otherwise keeps it, as "its own content").
 */
function VariantContent({
  projectId,
  variant,
  onChange,
  error,
}: {
  projectId: string;
  variant: VariantForm;
  onChange: (patch: Partial<VariantForm>) => void;
  error: string | undefined;
}) {
  const templates = useTemplatesPage(projectId, { page: 1, pageSize: 100, sort: 'updatedAt', dir: 'desc' });
  const notes = useFieldNotes(undefined, error ?? (templates.isError ? errorMessage(templates.error) : undefined));
  const list = templates.data?.data ?? [];
  const value = variant.bodyFrom ?? (variant.body === undefined ? '' : OWN);
  const choose = (chosen: string) => {
    if (chosen === '') return onChange({ body: undefined, bodyFrom: undefined });
    const template = list.find((t) => t.id === chosen);
    if (template) onChange({ body: template.body, bodyFrom: template.id });
  };
  return (
    <div className="field ab-variant-content">
      <label htmlFor={notes.id}>Content</label>
      <select id={notes.id} value={value} onChange={(e) => choose(e.target.value)} aria-describedby={notes.describedBy}>
        <option value="">The campaign’s content</option>
        {value === OWN && <option value={OWN}>Its own content</option>}
        {list.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
      <FieldNotes {...notes} />
    </div>
  );
}
