/**
 * How the fields page tells a project's contact fields in words: `GET /contacts/fields` names custom
 * fields `data.<key>` and gives coverage as the share (0 to 1) of contacts that have the field.
 */

const TYPE_LABELS: Record<string, string> = {
  string: 'Text',
  number: 'Number',
  boolean: 'Yes/no',
  date: 'Date',
  json: 'JSON',
};

export function fieldTypeLabel(type: string): string {
  return TYPE_LABELS[type] ?? type;
}

/** `data.plan` is shown as `plan`; standard fields keep their names. */
export function fieldDisplayName(field: { field: string; isCustom: boolean }): string {
  return field.isCustom && field.field.startsWith('data.') ? field.field.slice(5) : field.field;
}

const percent = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });
const count = new Intl.NumberFormat('en');

/**
 * `62.5% · 125 of 200 contacts`, or the share alone while the total is unknown. The count is worked
 * back from the share, which the API rounds to four decimals: exact below 10,000 contacts.
 */
export function coverageText(share: number, total: number | null): string {
  const shown = percent.format(share);
  if (total === null) return shown;
  if (total === 0) return 'No contacts yet';
  const having = Math.round(share * total);
  return `${shown} · ${count.format(having)} of ${count.format(total)} contact${total === 1 ? '' : 's'}`;
}

/** The API lists the values of every field but `createdAt`, which it refuses to enumerate. */
export function hasListableValues(field: { field: string; isCustom: boolean }): boolean {
  return field.isCustom || field.field !== 'createdAt';
}

/** Only custom fields can be deleted; the standard ones are columns of every contact. */
export function isDeletable(field: { isCustom: boolean }): boolean {
  return field.isCustom;
}

/** A value as a cell shows it: strings bare, the rest as JSON. */
export function fieldValueText(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '(empty text)' : value;
  return JSON.stringify(value) ?? String(value);
}

export interface UsageLists {
  segments: readonly { id: string; name: string }[];
  campaigns: readonly { id: string; name: string }[];
  workflows: readonly { id: string; name: string }[];
}

/** The kinds that use a field, each with the names, leaving out kinds with none. */
export function usageGroups(usage: UsageLists): { kind: string; names: string[] }[] {
  const groups = [
    { kind: 'Segments', names: usage.segments.map((u) => u.name) },
    { kind: 'Campaigns', names: usage.campaigns.map((u) => u.name) },
    { kind: 'Workflows', names: usage.workflows.map((u) => u.name) },
  ];
  return groups.filter((g) => g.names.length > 0);
}

/** What the delete dialog warns of: `Used by 2 segments and 1 campaign.`, or null when nothing uses it. */
export function usageWarning(usage: UsageLists): string | null {
  const parts = [
    [usage.segments.length, 'segment'],
    [usage.campaigns.length, 'campaign'],
    [usage.workflows.length, 'workflow'],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, word]) => `${n} ${word}${n === 1 ? '' : 's'}`);
  if (parts.length === 0) return null;
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `Used by ${list}.`;
}
