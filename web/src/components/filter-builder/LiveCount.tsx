import type { FilterCondition } from '../../../../src/domain/filters/schema.js';
import { errorMessage } from '../../api/errors.js';
import { matchWords } from './operator-words.js';
import { type Estimate, useLiveCount } from './useLiveCount.js';

const countFormat = new Intl.NumberFormat();

const estimateWords = (e: Estimate) =>
  matchWords({ total: e.estimate, subscribed: e.subscribed, margin: e.margin, subscribedMargin: e.subscribedMargin });

/**
 * The live count of a tree while it is edited ("1,204 match · 1,150 subscribed"; sampled figures
 * with their margin), and the exact count on demand. Subscribed contacts are the ones a MARKETING
 * campaign to this condition sends to.
 */
export function LiveCount({ condition }: { condition: FilterCondition }) {
  return <LiveCountView {...useLiveCount(condition)} />;
}

/** What `LiveCount` shows, for a host that reads the same count itself (the campaign composer). */
export function LiveCountView({ live, exact, countExactly }: ReturnType<typeof useLiveCount>) {
  return (
    <div className="live-count">
      <p className="live-count-figure" aria-live="polite" data-testid="live-count" data-status={live.status}>
        {live.status === 'done' && estimateWords(live.estimate)}
        {live.status === 'counting' &&
          (live.last ? <span className="is-stale">{estimateWords(live.last)}</span> : 'Counting…')}
        {live.status === 'incomplete' && 'Finish the filters to see how many contacts match.'}
        {live.status === 'error' && <span className="field-error">{errorMessage(live.error)}</span>}
      </p>
      {live.status === 'done' && !live.estimate.exact && (
        <p className="muted small">
          Estimated from {countFormat.format(live.estimate.sampled)} sampled contacts; count exactly for the precise
          figure.
        </p>
      )}
      <p className="muted small">Subscribed contacts are the ones a marketing campaign to this audience sends to.</p>
      <div className="live-count-exact">
        <button
          type="button"
          className="button button-small"
          disabled={exact.pending || live.status === 'incomplete'}
          onClick={() => void countExactly()}
        >
          {exact.pending ? 'Counting…' : 'Count exactly'}
        </button>
        <span aria-live="polite" data-testid="exact-count">
          {exact.data && `Exactly ${matchWords(exact.data)}`}
          {Boolean(exact.error) && <span className="field-error">{errorMessage(exact.error)}</span>}
        </span>
      </div>
    </div>
  );
}
