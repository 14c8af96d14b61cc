import type { ActivityType } from '../../../../src/api.js';
import { useContactFields } from '../../api/contacts.js';
import { useEventNames } from '../../api/events.js';
import { useSegmentList } from '../../api/segments.js';
import { useTopicList } from '../../api/topics.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { type FieldChoice, type ValueType, valueTypeOf } from './operator-words.js';

/** Fields a host page adds to the picker, such as a workflow's `context.<key>` values. */
export interface ExtraFields {
  label: string;
  fields: { field: string; label: string; type: ValueType }[];
}

export interface ChoiceGroup {
  label: string;
  choices: FieldChoice[];
}

/** The service's own events about a contact's email, with what the picker calls them. */
const EMAIL_ACTIVITY: Record<Exclude<ActivityType, 'email.received'>, string> = {
  'email.sent': 'Email sent',
  'email.failed': 'Email failed',
  'email.opened': 'Email opened',
  'email.clicked': 'Email link clicked',
  'email.bounced': 'Email bounced',
  'email.complained': 'Email marked as spam',
};

const STANDARD_LABELS: Record<string, string> = {
  email: 'Email',
  subscribed: 'Subscribed',
  createdAt: 'Created',
};

const countFormat = new Intl.NumberFormat();

/**
 * What the field picker offers, grouped: the host's extra fields, contact fields, custom data
 * (`GET /contacts/fields`), events (`GET /events/names`), email activity, and segments with their
 * member counts, leaving out `excludeSegmentId` (a segment cannot include itself).
 */
export function useFieldChoices(
  excludeSegmentId?: string,
  extraFields?: ExtraFields,
): { groups: ChoiceGroup[]; choices: FieldChoice[]; loading: boolean; error: unknown } {
  const projectId = useCurrentProject().id;
  const fields = useContactFields(projectId);
  const events = useEventNames(projectId);
  const segments = useSegmentList(projectId);
  const topics = useTopicList(projectId);
  const all = fields.data?.fields ?? [];
  const names = events.data?.names ?? [];
  const activity = new Set<string>(Object.keys(EMAIL_ACTIVITY));
  const groups: ChoiceGroup[] = [
    ...(extraFields
      ? [{ label: extraFields.label, choices: extraFields.fields.map((f) => ({ ...f, kind: 'field' as const })) }]
      : []),
    {
      label: 'Contact fields',
      choices: all
        .filter((f) => !f.isCustom)
        .map((f) => ({
          field: f.field,
          label: STANDARD_LABELS[f.field] ?? f.field,
          kind: 'field' as const,
          type: valueTypeOf(f.type),
        })),
    },
    {
      label: 'Custom data',
      choices: all
        .filter((f) => f.isCustom)
        .map((f) => ({
          field: f.field,
          label: f.field.replace(/^data\./, ''),
          kind: 'field' as const,
          type: valueTypeOf(f.type),
        })),
    },
    {
      label: 'Events',
      choices: names.filter((n) => !activity.has(n)).map((n) => ({ field: n, label: n, kind: 'event' as const })),
    },
    {
      label: 'Email activity',
      choices: Object.entries(EMAIL_ACTIVITY).map(([field, label]) => ({ field, label, kind: 'event' as const })),
    },
    {
      label: 'Segments',
      choices: (segments.data ?? [])
        .filter((s) => s.id !== excludeSegmentId)
        .map((s) => ({
          field: 'segment',
          label: s.name,
          kind: 'segment' as const,
          segmentId: s.id,
          detail: `${countFormat.format(s.memberCount)} member${s.memberCount === 1 ? '' : 's'}`,
        })),
    },
    {
      label: 'Topics',
      choices: (topics.data ?? []).map((t) => ({
        field: 'topic',
        label: t.name,
        kind: 'topic' as const,
        topicId: t.id,
        detail: `${countFormat.format(t.subscribers)} subscriber${t.subscribers === 1 ? '' : 's'}`,
      })),
    },
  ];
  return {
    groups,
    choices: groups.flatMap((g) => g.choices),
    loading: fields.isPending || events.isPending || segments.isPending || topics.isPending,
    error: fields.error ?? events.error ?? segments.error ?? topics.error,
  };
}

/** The groups with the choices whose label or field contains the search, empty groups left out. */
export function searchChoices(groups: readonly ChoiceGroup[], search: string): ChoiceGroup[] {
  const q = search.trim().toLowerCase();
  if (!q) return groups.filter((g) => g.choices.length > 0);
  return groups
    .map((g) => ({
      ...g,
      choices: g.choices.filter((c) => c.label.toLowerCase().includes(q) || c.field.toLowerCase().includes(q)),
    }))
    .filter((g) => g.choices.length > 0);
}
