import { useId } from 'react';
import type { Campaign } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { audienceCondition, type CampaignForm } from './campaign-form.js';
import { count, plural } from './campaign-words.js';
import { type Estimate, useEstimate, useSegments } from './campaigns-api.js';

/** The audience's size in words: exact, or an estimate with its margin. */
export function recipientWords(e: Estimate): string {
  if (e.exact) return plural(e.estimate, 'recipient');
  return `about ${plural(e.estimate, 'recipient')} (± ${count(e.margin)})`;
}

/** How many the audience reaches now, as the composer and the send confirmations say it. */
export function useAudienceCount(projectId: string, form: CampaignForm, kept: Campaign | null) {
  return useEstimate(projectId, audienceCondition(form, kept));
}

/**
 * Who the campaign goes to: everyone, or a segment, with how many that is now. Each choice is one
 * radio of the group; a third, "a condition", built with the segment builder's
 * `FilterBuilder({ value, onChange })`, belongs after the segment (it sets audienceType FILTERED and
 * audienceCondition). Until then a FILTERED campaign made through the API keeps its condition as is.
 */
export function AudienceCard({
  projectId,
  form,
  kept,
  onChange,
  error,
}: {
  projectId: string;
  form: CampaignForm;
  kept: Campaign | null;
  onChange: (patch: Partial<Pick<CampaignForm, 'audienceType' | 'segmentId'>>) => void;
  error?: string;
}) {
  const name = useId();
  const segmentSelect = useId();
  const segments = useSegments(projectId);
  const estimate = useAudienceCount(projectId, form, kept);
  const marketing = form.type === 'MARKETING';

  return (
    <section className="card stack audience-card" aria-labelledby={`${name}-title`}>
      <fieldset className="plain-fieldset stack-tight">
        <legend id={`${name}-title`} className="section-legend">
          Audience
        </legend>
        <div className="radio-row">
          <label>
            <input
              type="radio"
              name={name}
              checked={form.audienceType === 'ALL'}
              onChange={() => onChange({ audienceType: 'ALL' })}
            />
            <span>
              <strong>All contacts</strong>
              <span className="muted small"> {marketing ? 'who are subscribed' : 'of the project'}</span>
            </span>
          </label>
          <label>
            <input
              type="radio"
              name={name}
              checked={form.audienceType === 'SEGMENT'}
              onChange={() => onChange({ audienceType: 'SEGMENT' })}
            />
            <strong>A segment</strong>
          </label>
          {form.audienceType === 'FILTERED' && (
            <label>
              <input type="radio" name={name} checked readOnly />
              <span>
                <strong>A condition</strong>
                <span className="muted small"> set through the API; kept as it is</span>
              </span>
            </label>
          )}
        </div>
        {form.audienceType === 'SEGMENT' && (
          <div className="field audience-segment">
            <label htmlFor={segmentSelect}>Segment</label>
            <select
              id={segmentSelect}
              value={form.segmentId}
              onChange={(e) => onChange({ segmentId: e.target.value })}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${segmentSelect}-error` : undefined}
            >
              <option value="">{segments.isPending ? 'Loading segments…' : 'Choose a segment'}</option>
              {(segments.data ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({plural(s.memberCount, 'member')})
                </option>
              ))}
            </select>
            {segments.isError && <p className="field-error">{errorMessage(segments.error)}</p>}
            {segments.data?.length === 0 && <p className="field-hint">The project has no segments yet.</p>}
            {error && (
              <p id={`${segmentSelect}-error`} className="field-error">
                {error}
              </p>
            )}
          </div>
        )}
      </fieldset>
      <div aria-live="polite" className="audience-count">
        {estimate.isError ? (
          <p className="field-error">The audience could not be counted: {errorMessage(estimate.error)}</p>
        ) : estimate.data ? (
          <p>
            <strong data-testid="audience-count">{recipientWords(estimate.data)}</strong>
            <span className="muted small"> now{marketing ? ', subscribed only' : ''}. Recounted when it is sent.</span>
          </p>
        ) : estimate.isFetching ? (
          <p className="muted small">Counting…</p>
        ) : null}
      </div>
    </section>
  );
}
