import { diffLines, diffWordsWithSpace } from 'diff';
import type { VersionSummary } from '../../../../src/api.js';

/** A run of text that both sides share, or that only one has. */
export interface DiffPart {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** The subject's words, as one line with what was removed and added inline. */
export function subjectDiff(from: string, to: string): DiffPart[] {
  return diffWordsWithSpace(from, to).map((c) => ({
    kind: c.added ? 'added' : c.removed ? 'removed' : 'same',
    text: c.value,
  }));
}

/** A line of the body's diff, or a fold standing for unchanged lines left out. */
export type DiffLine = { kind: DiffPart['kind']; text: string } | { kind: 'fold'; count: number };

/** Unchanged lines kept around each change, as a reader needs to place it. */
const CONTEXT = 2;

/**
 * The body line by line: changed lines with `CONTEXT` unchanged ones around them; longer unchanged
 * runs fold into one line saying how many they are. Empty when nothing differs.
 */
export function bodyDiff(from: string, to: string, context = CONTEXT): DiffLine[] {
  const lines: { kind: DiffPart['kind']; text: string }[] = [];
  for (const change of diffLines(from, to)) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    const text = change.value.endsWith('\n') ? change.value.slice(0, -1) : change.value;
    for (const line of text.split('\n')) lines.push({ kind, text: line });
  }
  if (lines.every((l) => l.kind === 'same')) return [];
  const near = lines.map((_, i) =>
    lines.slice(Math.max(0, i - context), i + context + 1).some((l) => l.kind !== 'same'),
  );
  const out: DiffLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (near[i]) {
      out.push(lines[i]!);
      continue;
    }
    const last = out[out.length - 1];
    if (last?.kind === 'fold') last.count++;
    else out.push({ kind: 'fold', count: 1 });
  }
  return out;
}

/** The field names the history speaks of, as the editor labels them. */
export const FIELD_LABELS: Record<VersionSummary['changed'][number], string> = {
  name: 'Name',
  description: 'Description',
  subject: 'Subject',
  body: 'Body',
  bodySource: 'Blocks',
  from: 'From',
  fromName: 'From name',
  replyTo: 'Reply-to',
  type: 'Type',
  trackOpens: 'Open tracking',
  trackClicks: 'Click tracking',
};

/** "Changed the subject and body", "Created", "Restored version 2". */
export function versionSentence(v: Pick<VersionSummary, 'event' | 'restoredFrom' | 'changed'>): string {
  if (v.event === 'created') return 'Created';
  // A block document changes with its body: naming both says the same thing twice.
  const fields = v.changed.filter((f) => !(f === 'bodySource' && v.changed.includes('body')));
  const what = fields.map((f) => FIELD_LABELS[f].toLowerCase());
  const list = what.length <= 1 ? (what[0] ?? '') : `${what.slice(0, -1).join(', ')} and ${what[what.length - 1]}`;
  if (v.event === 'restored') return `Restored version ${v.restoredFrom}${list ? `: ${list}` : ''}`;
  return `Changed ${list}`;
}

/** Who saved a version, in words. */
export function authorWords(author: VersionSummary['author']): string {
  if (!author) return 'Before history was kept';
  if (author.kind === 'api_key') return 'API key';
  return author.email ?? 'A former member';
}
