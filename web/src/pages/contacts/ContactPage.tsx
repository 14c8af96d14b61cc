import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useContact } from '../../api/contacts.js';
import { RecordPage } from '../../components/RecordPage.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { ConsentCard } from './ConsentCard.js';
import { ContactDataCard } from './ContactDataCard.js';
import { ContactEmailsCard } from './ContactEmailsCard.js';
import { ContactPrivacyCard } from './ContactPrivacyCard.js';
import { ContactSegmentsCard } from './ContactSegmentsCard.js';
import { DeleteContactDialog } from './DeleteContactDialog.js';
import { EraseContactDialog } from './EraseContactDialog.js';
import { EventsTimeline } from './EventsTimeline.js';
import { SubscriptionCard } from './SubscriptionCard.js';
import './contacts.css';
import { formatDateTime } from '../../format/dates.js';

export default function ContactPage() {
  const { id = '' } = useParams();
  const project = useCurrentProject();
  const contact = useContact(project.id, id);
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState(false);
  const [erasing, setErasing] = useState(false);
  usePageTitle(contact.data?.email ?? 'Contact');

  return (
    <RecordPage
      query={contact}
      back={{ to: '/contacts', label: 'Contacts' }}
      labelledBy="contact-title"
      className="contact-page"
      title="Contact"
      missing={{
        heading: 'Contact not found',
        title: 'No such contact in this project',
        hint: 'It may have been deleted, or it belongs to another project.',
      }}
    >
      {(c) => (
        <>
          <div className="contact-heading">
            <div className="page-heading">
              <h1 id="contact-title" className="contact-email">
                {c.email}
              </h1>
              <p className="muted small">
                Added <time dateTime={c.createdAt}>{formatDateTime(c.createdAt)}</time> · updated{' '}
                <time dateTime={c.updatedAt}>{formatDateTime(c.updatedAt)}</time>
              </p>
            </div>
            <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
              Delete contact
            </button>
          </div>

          <div className="columns-record">
            <div className="stack">
              <SubscriptionCard projectId={project.id} contact={c} />
              <ConsentCard projectId={project.id} contactId={c.id} />
              <ContactDataCard projectId={project.id} contact={c} />
              <ContactSegmentsCard projectId={project.id} contactId={c.id} />
              <ContactEmailsCard projectId={project.id} email={c.email} />
              <ContactPrivacyCard projectId={project.id} contact={c} onErase={() => setErasing(true)} />
            </div>
            <EventsTimeline projectId={project.id} contactId={c.id} />
          </div>

          <DeleteContactDialog
            projectId={project.id}
            contact={deleting ? c : null}
            onClose={() => setDeleting(false)}
            onDeleted={() => navigate('/contacts', { replace: true })}
          />
          <EraseContactDialog
            projectId={project.id}
            contact={erasing ? c : null}
            onClose={() => setErasing(false)}
            onErased={() => navigate('/contacts', { replace: true })}
          />
        </>
      )}
    </RecordPage>
  );
}
