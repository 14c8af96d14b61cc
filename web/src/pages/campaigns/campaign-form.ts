import type { Campaign, FilterCondition, Template } from '../../../../src/api.js';
import {
  formOf as contentFormOf,
  EMPTY_FORM as EMPTY_TEMPLATE,
  isDirty as isContentDirty,
  STARTER_BODY,
  FORM_FIELDS as TEMPLATE_FIELDS,
  type TemplateForm,
  templatePayload,
} from '../templates/template-form.js';
import type { CampaignInput } from './campaigns-api.js';

/** What the composer holds: the content as the template editor holds it, and the audience. */
export interface CampaignForm extends TemplateForm {
  audienceType: Campaign['audienceType'];
  segmentId: string;
}

export const FORM_FIELDS = [...TEMPLATE_FIELDS, 'audienceType', 'segmentId'] as const;

export const EMPTY_FORM: CampaignForm = {
  ...EMPTY_TEMPLATE,
  body: `${STARTER_BODY}<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>\n`,
  audienceType: 'ALL',
  segmentId: '',
};

export const formOf = (c: Campaign): CampaignForm => ({
  ...contentFormOf(c),
  audienceType: c.audienceType,
  segmentId: c.segmentId ?? '',
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
});

/** The block document is compared by value: the server gives it back with its keys reordered. */
export const isDirty = (form: CampaignForm, saved: CampaignForm) =>
  isContentDirty(form, saved) || form.audienceType !== saved.audienceType || form.segmentId !== saved.segmentId;

/** What the first save still needs, in words; empty when the form can be saved. */
export function missingForSave(form: CampaignForm): string[] {
  const missing: string[] = [];
  if (!form.name.trim()) missing.push('a name');
  if (!form.subject.trim()) missing.push('a subject');
  if (!form.from.trim()) missing.push('a sender address');
  if (!form.body.trim()) missing.push('a body');
  if (form.audienceType === 'SEGMENT' && !form.segmentId) missing.push('a segment');
  return missing;
}

/**
 * The body of POST /campaigns or PUT /campaigns/{id}. A PUT replaces everything, so what the
 * composer does not edit (a condition set through the API) is sent back as it was.
 */
export function campaignPayload(form: CampaignForm, kept: Campaign | null): CampaignInput {
  return {
    ...templatePayload(form),
    audienceType: form.audienceType,
    segmentId: form.audienceType === 'SEGMENT' ? form.segmentId : null,
    audienceCondition:
      form.audienceType === 'FILTERED' ? ((kept?.audienceCondition as FilterCondition | null) ?? null) : null,
  };
}

type Filter = FilterCondition['groups'][number]['filters'][number];

/**
 * The audience as a condition to count (POST /segments/estimate) with the predicate sending uses:
 * subscribed contacts only for marketing email. Null while there is nothing to count.
 */
export function audienceCondition(
  form: Pick<CampaignForm, 'audienceType' | 'segmentId' | 'type'>,
  kept: Campaign | null,
): FilterCondition | null {
  const filters: Filter[] = form.type === 'MARKETING' ? [{ field: 'subscribed', operator: 'equals', value: true }] : [];
  if (form.audienceType === 'SEGMENT') {
    if (!form.segmentId) return null;
    filters.push({ field: 'segment', operator: 'memberOfSegment', value: form.segmentId });
  }
  if (form.audienceType !== 'FILTERED') return { logic: 'AND', groups: [{ filters }] };
  const condition = (kept?.audienceCondition as FilterCondition | null) ?? null;
  return condition && { logic: 'AND', groups: [{ filters, conditions: condition }] };
}
