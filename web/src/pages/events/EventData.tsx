import { type RecordRef, referenceOf } from '../../api/record-names.js';
import { RecordLink } from '../../components/RecordLink.js';
import { datumText } from './event-filters.js';

/** An event's name, breakable after its dots and underscores only, never inside a word. */
export function EventName({ name }: { name: string }) {
  const parts = name.split(/(?<=[._])/);
  return (
    <>
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one name, in order
        <span key={i}>
          {i > 0 && <wbr />}
          {part}
        </span>
      ))}
    </>
  );
}

/**
 * An event's data on one line: `campaign: Spring sale, plan: pro`, ids of things the dashboard
 * has a page for as links named by `nameOf`, the rest counted.
 */
export function EventData({
  data,
  nameOf,
  most = 3,
}: {
  data: Record<string, unknown>;
  nameOf: (ref: RecordRef) => string | undefined;
  most?: number;
}) {
  const entries = Object.entries(data);
  return (
    <>
      {entries.slice(0, most).map(([key, value], i) => {
        const ref = referenceOf(key, value);
        return (
          <span key={key} className="event-datum">
            {i > 0 && ', '}
            {ref ? (
              <>
                {`${ref.kind}: `}
                <RecordLink to={ref} name={nameOf(ref)} />
              </>
            ) : (
              `${key}: ${datumText(value)}`
            )}
          </span>
        );
      })}
      {entries.length > most && `, ${entries.length - most} more`}
    </>
  );
}
