import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { isApiError } from '../../api/client.js';
import { useContact } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { EmptyState } from '../../components/EmptyState.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { ContactDataCard } from './ContactDataCard.js';
import { ContactEmailsCard } from './ContactEmailsCard.js';
import { DeleteContactDialog } from './DeleteContactDialog.js';
import { EventsTimeline } from './EventsTimeline.js';
import { SubscriptionCard } from './SubscriptionCard.js';
import './contacts.css';

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export default function ContactPage() {
  const { id = '' } = useParams();
  const project = useCurrentProject();
  const contact = useContact(project.id, id);
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState(false);
  usePageTitle(contact.data?.email ?? 'Contact');

  const back = (
    <p>
      <Link to="/contacts" className="back-link">
        <span aria-hidden="true">←</span> Contacts
      </Link>
    </p>
  );

  if (contact.isPending) {
    return (
      <section className="stack" aria-busy="true">
        {back}
        <p>Loading…</p>
      </section>
    );
  }
  if (contact.isError) {
    // A contact of another project, or a deleted one, is a 404 like any other.
    const missing = isApiError(contact.error, 404) || isApiError(contact.error, 422);
    return (
      <section className="stack" aria-labelledby="contact-missing">
        {back}
        <h1 id="contact-missing">{missing ? 'Contact not found' : 'Contact'}</h1>
        {missing ? (
          <EmptyState title="No such contact in this project">
            <p className="muted">It may have been deleted, or it belongs to another project.</p>
          </EmptyState>
        ) : (
          <Alert
            action={
              <button type="button" className="button" onClick={() => contact.refetch()}>
                Try again
              </button>
            }
          >
            {errorMessage(contact.error)}
          </Alert>
        )}
      </section>
    );
  }

  const c = contact.data;
  return (
    <section className="stack contact-page" aria-labelledby="contact-title">
      {back}
      <div className="contact-heading">
        <div className="page-heading">
          <h1 id="contact-title" className="contact-email">
            {c.email}
          </h1>
          <p className="muted small">
            Added <time dateTime={c.createdAt}>{dateTimeFormat.format(new Date(c.createdAt))}</time> · updated{' '}
            <time dateTime={c.updatedAt}>{dateTimeFormat.format(new Date(c.updatedAt))}</time>
          </p>
        </div>
        <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
          Delete contact
        </button>
      </div>

      <div className="contact-grid">
        <div className="stack">
          <SubscriptionCard projectId={project.id} contact={c} />
          <ContactDataCard projectId={project.id} contact={c} />
          <ContactEmailsCard projectId={project.id} email={c.email} />
        </div>
        <EventsTimeline projectId={project.id} contactId={c.id} />
      </div>

      <DeleteContactDialog
        projectId={project.id}
        contact={deleting ? c : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => navigate('/contacts', { replace: true })}
      />
    </section>
  );
}
