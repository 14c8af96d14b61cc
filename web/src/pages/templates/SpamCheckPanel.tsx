import { useId, useState } from 'react';
import type { SpamCheck } from '../../../../src/api.js';
import { ApiError, errorMessage } from '../../api/errors.js';
import { useSpamCheck, useSpamCheckStatus } from '../../api/templates.js';
import { RetryAlert } from '../../components/Alert.js';
import { contentMissing, type EditedContent, signedPoints, spamCheckInput, spamWords } from './spam-words.js';

const FIELD_NAMES: Record<string, string> = {
  from: 'From',
  fromName: 'From name',
  replyTo: 'Reply-to',
  subject: 'Subject',
  body: 'Body',
};

/**
 * SpamAssassin's score of the content as it would be sent (tracked links, open pixel, footer and
 * headers of its type), asked when the button is pressed, never while typing. Above 3 points it
 * warns; nothing is ever blocked. Without SPAMD_URL it says how the check is turned on.
 */
export function SpamCheckPanel({
  projectId,
  form,
  recipient,
}: {
  projectId: string;
  form: EditedContent;
  /** Whom the content renders for: a contact of the project, or sample data. */
  recipient: Parameters<typeof spamCheckInput>[1];
}) {
  const input = spamCheckInput(form, recipient);
  /** What the content still lacks for a check ("a From address"); null when it can be checked. */
  const missing = contentMissing(form);
  const status = useSpamCheckStatus(projectId);
  const check = useSpamCheck(projectId);
  const [checkedKey, setCheckedKey] = useState<string | null>(null);
  const titleId = useId();
  const key = JSON.stringify(input);
  const run = () => {
    setCheckedKey(key);
    check.mutate(input);
  };
  const off = status.data?.configured === false || check.data?.configured === false;

  return (
    <section
      className="card stack spam-check"
      aria-labelledby={titleId}
      aria-busy={status.isPending || check.isPending || undefined}
    >
      <div className="preview-head">
        <h2 id={titleId}>Spam check</h2>
        {status.data?.configured && (
          <button type="button" className="button" onClick={run} disabled={check.isPending || missing !== null}>
            {check.isPending ? 'Checking…' : check.data ? 'Check again' : 'Check'}
          </button>
        )}
      </div>
      <p className="muted small">
        Scores the email as it would be sent, tracking and footer included, with SpamAssassin. It judges the content
        only: how receivers rate your domain is on the Domains page.
      </p>
      {status.isPending ? (
        <p className="muted">Loading…</p>
      ) : status.isError ? (
        <RetryAlert small error={status.error} onRetry={() => status.refetch()} />
      ) : off ? (
        <p data-testid="spam-off">{status.data?.message ?? check.data?.message}</p>
      ) : (
        <>
          {missing && <p className="field-hint">Add {missing} to check it.</p>}
          <div aria-live="polite" className="spam-outcome">
            {check.isPending ? (
              <p className="muted">Checking…</p>
            ) : check.isError ? (
              <p className="field-error">{problem(check.error)}</p>
            ) : check.data ? (
              <>
                {checkedKey !== key && <p className="muted small">The content changed since this check.</p>}
                <Outcome check={check.data} />
              </>
            ) : (
              <p className="muted">Not checked yet.</p>
            )}
          </div>
        </>
      )}
    </section>
  );
}

function problem(error: unknown): string {
  if (error instanceof ApiError && error.fieldErrors.length > 0)
    return error.fieldErrors.map((e) => `${FIELD_NAMES[e.field] ?? e.field}: ${e.message}`).join(' ');
  if (error instanceof ApiError && error.code === 'SPAM_CHECK_UNAVAILABLE')
    return 'The spam check is unavailable right now: SpamAssassin did not answer. Try again in a moment.';
  return errorMessage(error);
}

function Outcome({ check }: { check: SpamCheck }) {
  if (check.score === null) return <p>{check.message}</p>;
  const words = spamWords({ ...check, score: check.score });
  return (
    <div className="stack-tight">
      <p className={`status status-${words.tone}`} data-testid="spam-score">
        <span className="status-dot" aria-hidden="true" />
        {words.points}
      </p>
      {check.warning ? (
        <p className="notice">
          Above {check.warnAbove} points, some receivers may file this email as spam. You can still send it; the rules
          below say what counts against it.
        </p>
      ) : (
        <p className="muted small">
          At or below {check.warnAbove} points: its content is unlikely to be filed as spam.
        </p>
      )}
      {words.counted.length > 0 && (
        <ul className="spam-rules" aria-label="Rules it matched">
          {words.counted.map((rule) => (
            <li key={rule.name} className="spam-rule">
              <span className={`badge ${rule.score > 0 ? 'badge-pending' : 'badge-ok'}`}>
                <span className="visually-hidden">Points: </span>
                {signedPoints(rule.score)}
              </span>
              <div>
                <p className="spam-rule-description">{rule.description || rule.name}</p>
                <p className="muted small">
                  <code>{rule.name}</code>
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}
      {words.uncounted > 0 && (
        <p className="muted small">
          {words.uncounted === 1 ? '1 more rule matched' : `${words.uncounted} more rules matched`} without points.
        </p>
      )}
    </div>
  );
}
