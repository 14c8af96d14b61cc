import { useId } from 'react';
import type { Contact } from '../../../../src/api.js';
import { Alert } from '../../components/Alert.js';
import { useDownload } from '../../components/useDownload.js';
import { downloadContactData } from './privacy-api.js';

/** The person's rights on their data: a copy of everything held (export), and its erasure. */
export function ContactPrivacyCard({
  projectId,
  contact,
  onErase,
}: {
  projectId: string;
  contact: Contact;
  onErase: () => void;
}) {
  const headingId = useId();
  const file = useDownload(() => downloadContactData(projectId, contact.id));
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Privacy</h2>
      <p className="muted small">
        Everything held about this contact, as one JSON file: its data, events, emails with their content, inbound mail,
        consent history, topics, segments, campaigns, workflow runs, form signups and suppressions. Each download is in
        the audit log.
      </p>
      <div className="contact-privacy-actions">
        <button type="button" className="button" disabled={file.busy} onClick={file.start}>
          {file.busy ? 'Preparing the file…' : 'Download data'}
        </button>
        <button type="button" className="button button-danger" onClick={onErase}>
          Erase…
        </button>
      </div>
      {file.problem && <Alert>{file.problem}</Alert>}
    </section>
  );
}
