import { useContactSegments } from '../../api/contacts.js';
import { QueryView } from '../../components/QueryView.js';

/** The segments the contact is in now: those whose condition it matches and those listing it. */
export function ContactSegmentsCard({ projectId, contactId }: { projectId: string; contactId: string }) {
  const segments = useContactSegments(projectId, contactId);
  return (
    <section
      className="card stack"
      aria-labelledby="contact-segments-title"
      aria-busy={segments.isFetching || undefined}
    >
      <h2 id="contact-segments-title">Segments</h2>
      <QueryView
        query={segments}
        loading={<p className="muted">Loading segments…</p>}
        retry="small"
        isEmpty={(list) => list.length === 0}
        empty={<p className="muted">This contact is in no segment.</p>}
      >
        {(list) => (
          <ul className="contact-segments" aria-label="Segments of this contact">
            {list.map((s) => (
              <li key={s.id}>
                <span>{s.name}</span>{' '}
                <span className="muted small">{s.type === 'STATIC' ? 'listed by hand' : 'matches its condition'}</span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}
