import type { Campaign, EmailType, FilterCondition, Template } from '../../../../src/api.js';
import type { CampaignInput } from './campaigns-api.js';

/** What the composer holds: every field as typed, optional ones empty when unset. */
export interface CampaignForm {
  name: string;
  subject: string;
  from: string;
  fromName: string;
  replyTo: string;
  type: EmailType;
  body: string;
  audienceType: Campaign['audienceType'];
  segmentId: string;
}

export const FORM_FIELDS = [
  'name',
  'subject',
  'from',
  'fromName',
  'replyTo',
  'type',
  'body',
  'audienceType',
  'segmentId',
] as const;

export const EMPTY_FORM: CampaignForm = {
  name: '',
  subject: '',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'MARKETING',
  body: '<h1>Hello {{ firstName ?? "there" }}</h1>\n<p>Write your message here.</p>\n<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>\n',
  audienceType: 'ALL',
  segmentId: '',
};

export function formOf(c: Campaign): CampaignForm {
  return {
    name: c.name,
    subject: c.subject,
    from: c.from,
    fromName: c.fromName ?? '',
    replyTo: c.replyTo ?? '',
    type: c.type,
    body: c.body,
    audienceType: c.audienceType,
    segmentId: c.segmentId ?? '',
  };
}

/** The content of a template, copied into the form. */
export const withTemplate = (form: CampaignForm, t: Template): CampaignForm => ({
  ...form,
  subject: t.subject,
  body: t.body,
  from: form.from || t.from,
  fromName: form.fromName || (t.fromName ?? ''),
  replyTo: form.replyTo || (t.replyTo ?? ''),
  type: t.type,
});

export const isDirty = (form: CampaignForm, saved: CampaignForm) => FORM_FIELDS.some((f) => form[f] !== saved[f]);

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

const orNull = (v: string) => (v.trim() === '' ? null : v.trim());

/**
 * The body of POST /campaigns or PUT /campaigns/{id}. A PUT replaces everything, so what the
 * composer does not edit (the description, the block document, a condition set through the API) is
 * sent back as it was.
 */
export function campaignPayload(form: CampaignForm, kept: Campaign | null): CampaignInput {
  const condition: FilterCondition | null =
    form.audienceType === 'FILTERED' ? ((kept?.audienceCondition as FilterCondition | null) ?? null) : null;
  return {
    name: form.name.trim(),
    subject: form.subject,
    body: form.body,
    bodySource: kept?.bodySource ?? null,
    from: form.from.trim(),
    fromName: orNull(form.fromName),
    replyTo: orNull(form.replyTo),
    description: kept?.description ?? null,
    type: form.type,
    audienceType: form.audienceType,
    segmentId: form.audienceType === 'SEGMENT' ? form.segmentId : null,
    audienceCondition: condition,
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
