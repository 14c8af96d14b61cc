import { useId } from 'react';
import type { Campaign } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { useTopicList } from '../../api/topics.js';
import { FilterBuilder } from '../../components/filter-builder/FilterBuilder.js';
import { emptyCondition } from '../../components/filter-builder/filter-tree.js';
import { LiveCountView } from '../../components/filter-builder/LiveCount.js';
import { type Estimate, useLiveCount } from '../../components/filter-builder/useLiveCount.js';
import { audienceCondition, type CampaignForm, conditionIncomplete } from './campaign-form.js';
import { count, plural } from './campaign-words.js';
import { useSegments } from './campaigns-api.js';

/**
 * How many a campaign of this type sends to, in words: the subscribed figure for marketing email,
 * every match otherwise; exact, or an estimate with its margin.
 */
export function recipientWords(e: Estimate, type: Campaign['type']): string {
  const [n, margin] = type === 'MARKETING' ? [e.subscribed, e.subscribedMargin] : [e.estimate, e.margin];
  if (e.exact) return plural(n, 'recipient');
  return `about ${plural(n, 'recipient')} (± ${count(margin)})`;
}

export type AudienceCount = ReturnType<typeof useLiveCount> & {
  /** Whether there is an audience to count: not while a segment is still to be chosen. */
  counted: boolean;
  /** The figures of the audience as it is now; undefined while counting or with nothing to count. */
  estimate: Estimate | undefined;
};

/**
 * The segment builder's live count of the audience, the one count the composer shows and the send
 * confirmations name; nothing is counted while a segment is still to be chosen.
 */
export function useAudienceCount(form: CampaignForm): AudienceCount {
  const condition = audienceCondition(form);
  const count = useLiveCount(condition ?? emptyCondition(), { enabled: condition !== null });
  const estimate = condition && count.live.status === 'done' ? count.live.estimate : undefined;
  return { ...count, counted: condition !== null, estimate };
}

/** The save's field errors about the condition, by their path within the tree. */
function conditionErrors(errors: Record<string, string>): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [field, message] of Object.entries(errors)) {
    if (field === 'audienceCondition') found[''] = message;
    else if (field.startsWith('audienceCondition.')) found[field.slice('audienceCondition.'.length)] = message;
  }
  return found;
}

/**
 * Who the campaign goes to: everyone, a segment, or a condition built with the segment builder,
 * with how many that is now. Each choice is one radio of the group.
 */
export function AudienceCard({
  projectId,
  form,
  count: audience,
  onChange,
  errors,
}: {
  projectId: string;
  form: CampaignForm;
  count: AudienceCount;
  onChange: (patch: Partial<Pick<CampaignForm, 'audienceType' | 'segmentId' | 'condition' | 'topicId'>>) => void;
  /** The last save's field errors. */
  errors: Record<string, string>;
}) {
  const name = useId();
  const segmentSelect = useId();
  const segments = useSegments(projectId);
  const topicSelect = useId();
  const topics = useTopicList(projectId);
  const marketing = form.type === 'MARKETING';
  const error = errors.segmentId ?? errors.audienceType;
  const choices: [CampaignForm['audienceType'], string, string | null][] = [
    ['ALL', 'All contacts', marketing ? 'who are subscribed' : 'of the project'],
    ['SEGMENT', 'A segment', null],
    ['FILTERED', 'A condition', 'built here with filters'],
  ];

  return (
    <section className="card stack audience-card" aria-labelledby={`${name}-title`}>
      <fieldset className="plain-fieldset stack-tight">
        <legend id={`${name}-title`} className="section-legend">
          Audience
        </legend>
        <div className="radio-row">
          {choices.map(([type, title, hint]) => (
            <label key={type}>
              <input
                type="radio"
                name={name}
                checked={form.audienceType === type}
                onChange={() => onChange({ audienceType: type })}
              />
              <span>
                <strong>{title}</strong>
                {hint && <span className="muted small"> {hint}</span>}
              </span>
            </label>
          ))}
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
      {marketing && (
        <div className="field audience-topic">
          <label htmlFor={topicSelect}>Topic</label>
          <select
            id={topicSelect}
            value={form.topicId}
            onChange={(e) => onChange({ topicId: e.target.value })}
            aria-invalid={errors.topicId ? true : undefined}
            aria-describedby={`${topicSelect}-hint${errors.topicId ? ` ${topicSelect}-error` : ''}`}
          >
            <option value="">{topics.isPending ? 'Loading topics…' : 'None: every subscribed contact'}</option>
            {(topics.data ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({plural(t.subscribers, 'subscriber')})
              </option>
            ))}
          </select>
          <p id={`${topicSelect}-hint`} className="field-hint">
            About a topic, it reaches only the contacts that receive the topic, and its unsubscribe link leaves only
            that topic.
          </p>
          {topics.isError && <p className="field-error">{errorMessage(topics.error)}</p>}
          {errors.topicId && (
            <p id={`${topicSelect}-error`} className="field-error">
              {errors.topicId}
            </p>
          )}
        </div>
      )}
      {form.audienceType === 'FILTERED' && (
        <div className="stack-tight audience-condition">
          <FilterBuilder
            value={form.condition}
            onChange={(condition) => onChange({ condition })}
            label="Audience condition"
            errors={conditionErrors(errors)}
          />
          {conditionIncomplete(form) && (
            <p className="field-error" data-testid="condition-incomplete">
              Give every filter a field and a value: until then the condition is not saved and the campaign cannot be
              sent.
            </p>
          )}
        </div>
      )}
      {audience.counted && (
        <div className="audience-count">
          <LiveCountView {...audience} />
          <p aria-live="polite">
            {audience.estimate && (
              <>
                <strong data-testid="audience-count">{recipientWords(audience.estimate, form.type)}</strong>
                <span className="muted small">
                  {' '}
                  now{marketing ? ', subscribed only' : ''}. Recounted when it is sent.
                </span>
              </>
            )}
          </p>
        </div>
      )}
    </section>
  );
}
