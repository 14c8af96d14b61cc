import type { SpamCheck } from '../../../../src/api.js';
import type { SpamCheckInput } from '../../api/templates.js';

type Rule = SpamCheck['rules'][number];

/** How the spam check's answer reads in the panel. */
export interface SpamWords {
  tone: 'ok' | 'waiting';
  /** "1.7 points", "-0.3 points", "1 point". */
  points: string;
  /** The rules that add or take off points, most first. */
  counted: Rule[];
  /** How many more rules matched without points (informational). */
  uncounted: number;
}

export function spamWords(check: SpamCheck & { score: number }): SpamWords {
  const score = Number(check.score.toFixed(1));
  return {
    tone: check.warning ? 'waiting' : 'ok',
    points: `${score} ${Math.abs(score) === 1 ? 'point' : 'points'}`,
    counted: check.rules.filter((r) => r.score !== 0),
    uncounted: check.rules.filter((r) => r.score === 0).length,
  };
}

/** A rule's points with their sign: "+1.7", "−0.5". */
export function signedPoints(score: number): string {
  const value = Math.abs(score).toFixed(1);
  return score < 0 ? `−${value}` : `+${value}`;
}

/** What the content lacks before it can be checked (said as "Add … to check it"); null when nothing. */
export function contentMissing(content: { from: string; subject: string; body: string }): string | null {
  if (content.from.trim() === '') return 'a From address';
  if (content.subject.trim() === '') return 'a subject';
  if (content.body.trim() === '') return 'a body';
  return null;
}

/** The content as an editor holds it (template or campaign). */
export type EditedContent = Pick<SpamCheckInput, 'subject' | 'body' | 'type'> & {
  from: string;
  fromName: string;
  replyTo: string;
};

/** What the spam check is asked about: the content as it would be saved, rendered for `recipient`. */
export function spamCheckInput(
  form: EditedContent,
  recipient: { contactId: string } | { data: Record<string, unknown> },
): SpamCheckInput {
  return {
    subject: form.subject,
    body: form.body,
    type: form.type,
    from: form.from.trim(),
    fromName: form.fromName.trim() || null,
    replyTo: form.replyTo.trim() || null,
    ...recipient,
  };
}
