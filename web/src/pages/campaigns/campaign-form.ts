import type { Campaign, FilterCondition, Template } from '../../../../src/api.js';
import { emptyCondition, pruneEmpty, treeIssues } from '../../components/filter-builder/filter-tree.js';
import {
  formOf as contentFormOf,
  EMPTY_FORM as EMPTY_TEMPLATE,
  isDirty as isContentDirty,
  STARTER_BODY,
  FORM_FIELDS as TEMPLATE_FIELDS,
  type TemplateForm,
  templatePayload,
  trackChoiceOf,
} from '../templates/template-form.js';
import { AB_FIELDS, type AbTestForm, abDirty, abErrors, abFormOf, abPayload, EMPTY_AB } from './ab-test-form.js';
import type { CampaignInput } from './campaigns-api.js';
import {
  EMPTY_TIMING,
  TIMING_FIELDS,
  type TimingForm,
  timingDirty,
  timingErrors,
  timingFormOf,
  timingPayload,
} from './send-timing.js';

/**
 * What the composer holds: the content as the template editor holds it, and the audience. The
 * condition is the builder's tree as edited (empty groups and unfinished filters included), kept
 * while another audience type is chosen so switching back loses nothing.
 */
export interface CampaignForm extends TemplateForm, TimingForm, AbTestForm {
  audienceType: Campaign['audienceType'];
  segmentId: string;
  condition: FilterCondition;
}

export const FORM_FIELDS = [
  ...TEMPLATE_FIELDS,
  'audienceType',
  'segmentId',
  'condition',
  ...TIMING_FIELDS,
  ...AB_FIELDS,
] as const;

export const EMPTY_FORM: CampaignForm = {
  ...EMPTY_TEMPLATE,
  body: `${STARTER_BODY}<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>\n`,
  audienceType: 'ALL',
  segmentId: '',
  condition: emptyCondition(),
  topicId: '',
  ...EMPTY_TIMING,
  ...EMPTY_AB,
};

export const formOf = (c: Campaign): CampaignForm => ({
  ...contentFormOf(c),
  audienceType: c.audienceType,
  segmentId: c.segmentId ?? '',
  condition: (c.audienceCondition as FilterCondition | null) ?? emptyCondition(),
  topicId: c.topicId ?? '',
  ...timingFormOf(c),
  ...abFormOf(c),
});

/** The content of a template, copied into the form: its block document too, so blocks stay blocks. */
export const withTemplate = (form: CampaignForm, t: Template): CampaignForm => ({
  ...form,
  subject: t.subject,
  body: t.body,
  bodySource: t.bodySource,
  from: form.from || t.from,
  fromName: form.fromName || (t.fromName ?? ''),
  replyTo: form.replyTo || (t.replyTo ?? ''),
  type: t.type,
  trackOpens: trackChoiceOf(t.trackOpens),
  trackClicks: trackChoiceOf(t.trackClicks),
  topicId: form.topicId || (t.topicId ?? ''),
});

/**
 * The block document is compared by value (the server gives it back with its keys reordered), the
 * condition by identity (every edit of the builder makes a new tree).
 */
export const isDirty = (form: CampaignForm, saved: CampaignForm) =>
  isContentDirty(form, saved) ||
  form.audienceType !== saved.audienceType ||
  form.segmentId !== saved.segmentId ||
  form.condition !== saved.condition ||
  timingDirty(form, saved) ||
  abDirty(form, saved);

/** Whether the audience is a condition the API would refuse (a filter without field or value). */
export const conditionIncomplete = (form: Pick<CampaignForm, 'audienceType' | 'condition'>) =>
  form.audienceType === 'FILTERED' && treeIssues(form.condition).length > 0;

/** What the first save still needs, in words; empty when the form can be saved. */
export function missingForSave(form: CampaignForm): string[] {
  const missing: string[] = [];
  if (!form.name.trim()) missing.push('a name');
  if (!form.subject.trim()) missing.push('a subject');
  if (!form.from.trim()) missing.push('a sender address');
  if (!form.body.trim()) missing.push('a body');
  if (form.audienceType === 'SEGMENT' && !form.segmentId) missing.push('a segment');
  if (conditionIncomplete(form)) missing.push('a complete condition');
  if (Object.keys(timingErrors(form)).length > 0) missing.push('a valid send time');
  if (Object.keys(abErrors(form)).length > 0) missing.push('a valid A/B test');
  return missing;
}

/**
 * The body of POST /campaigns or PUT /campaigns/{id}, the condition without the groups left empty.
 */
export function campaignPayload(form: CampaignForm): CampaignInput {
  return {
    ...templatePayload(form),
    audienceType: form.audienceType,
    segmentId: form.audienceType === 'SEGMENT' ? form.segmentId : null,
    audienceCondition: form.audienceType === 'FILTERED' ? pruneEmpty(form.condition) : null,
    topicId: form.type === 'MARKETING' && form.topicId ? form.topicId : null,
    ...timingPayload(form),
    ...abPayload(form),
  };
}

/**
 * The audience as a tree to count (POST /segments/estimate), the one sending compiles: everyone,
 * the segment's members, or the condition. The estimate's `subscribed` figure is who of those a
 * MARKETING campaign sends to. Null while there is no segment to count; an unfinished tree is
 * returned as it is, for the live count to say what it lacks.
 */
export function audienceCondition(
  form: Pick<CampaignForm, 'audienceType' | 'segmentId' | 'condition'> &
    Partial<Pick<CampaignForm, 'topicId' | 'type'>>,
): FilterCondition | null {
  const base = baseAudience(form);
  // About a topic, a marketing campaign reaches the topic's members among the audience.
  if (!base || !form.topicId || form.type !== 'MARKETING') return base;
  return {
    logic: 'AND',
    groups: [
      {
        filters: [{ field: 'topic', operator: 'memberOfTopic', value: form.topicId }],
        ...(base.groups.some((g) => g.filters.length > 0 || g.conditions) ? { conditions: base } : {}),
      },
    ],
  };
}

function baseAudience(form: Pick<CampaignForm, 'audienceType' | 'segmentId' | 'condition'>): FilterCondition | null {
  switch (form.audienceType) {
    case 'ALL':
      return emptyCondition();
    case 'SEGMENT':
      return form.segmentId
        ? {
            logic: 'AND',
            groups: [{ filters: [{ field: 'segment', operator: 'memberOfSegment', value: form.segmentId }] }],
          }
        : null;
    case 'FILTERED':
      return pruneEmpty(form.condition);
  }
}
