import { Link } from 'react-router-dom';
import type { ActivityItem } from '../../../../src/api.js';
import { activityDetail, activityParts, type Part, typeLabel, typeTone } from './activity-words.js';
import './activity.css';
import { formatDateTime } from '../../format/dates.js';

const TONE_CLASS = { ok: 'badge badge-ok', problem: 'badge badge-failed', neutral: 'badge' } as const;

/** The feed as a list of sentences with links to the contact and the email; newest first. */
export function ActivityFeed({
  items,
  label,
  stale = false,
}: {
  items: readonly ActivityItem[];
  label: string;
  stale?: boolean;
}) {
  return (
    <ol className={`activity-feed${stale ? ' is-stale' : ''}`} aria-label={label}>
      {items.map((item) => (
        <ActivityRow key={item.id} item={item} />
      ))}
    </ol>
  );
}

function ActivityRow({ item }: { item: ActivityItem }) {
  const detail = activityDetail(item);
  return (
    <li className="activity-item">
      <span className={`activity-type ${TONE_CLASS[typeTone(item.type)]}`}>{typeLabel(item.type)}</span>
      <div className="activity-body">
        <p className="activity-sentence">
          {activityParts(item).map((part, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a sentence's parts never move
            <SentencePart key={i} part={part} />
          ))}
        </p>
        {detail && <p className="activity-detail muted small">{detail}</p>}
      </div>
      <time className="activity-when muted small" dateTime={item.createdAt}>
        {formatDateTime(item.createdAt)}
      </time>
    </li>
  );
}

function SentencePart({ part }: { part: Part }) {
  switch (part.kind) {
    case 'text':
      return part.text;
    case 'contact':
      return (
        <Link className="activity-contact" to={`/contacts/${encodeURIComponent(part.id)}`}>
          {part.text}
        </Link>
      );
    case 'email':
      return part.id ? <Link to={`/emails/${encodeURIComponent(part.id)}`}>{part.text}</Link> : part.text;
  }
}

/** Placeholder lines while the feed loads. */
export function ActivityFeedSkeleton({ rows = 5 }: { rows?: number }) {
  return (
    <div className="activity-feed" aria-hidden="true">
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have nothing else to tell them apart
        <div className="activity-item" key={i}>
          <span className="skeleton activity-skeleton-type" />
          <span className="skeleton" />
        </div>
      ))}
    </div>
  );
}
