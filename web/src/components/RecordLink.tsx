import { Link } from 'react-router-dom';
import { type RecordRef, recordPath, shortId } from '../api/record-names.js';

/** A link to a thing's page, named (its name, subject or address) once the name is known. */
export function RecordLink({ to, name }: { to: RecordRef; name: string | undefined }) {
  return (
    <Link to={recordPath(to)} className="record-link" title={name ? undefined : to.id}>
      {name || shortId(to.id)}
    </Link>
  );
}
