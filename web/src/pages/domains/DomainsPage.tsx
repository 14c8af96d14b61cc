import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { Domain } from '../../../../src/api.js';
import { useDomains } from '../../api/domains.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { useDeliverySettings } from '../delivery/delivery-api.js';
import { AddDomainForm } from './AddDomainForm.js';
import { DeleteDomainDialog } from './DeleteDomainDialog.js';
import { DomainCard } from './DomainCard.js';

export default function DomainsPage() {
  usePageTitle('Domains');
  const project = useCurrentProject();
  const domains = useDomains(project.id);
  const settings = useDeliverySettings(project.id);
  const capturing = settings.data?.mode === 'capture';
  const [deleting, setDeleting] = useState<Domain | null>(null);
  // Adding and deleting domains takes an admin (the API refuses members); members read them.
  const admin = project.role !== 'member';

  return (
    <section aria-labelledby="domains-title" className="stack">
      <div className="page-heading">
        <h1 id="domains-title">Domains</h1>
        <p className="muted">
          {capturing ? 'Once a relay is set up, mail is sent only from verified domains. ' : ''}
          {settings.data?.mode === 'relay' ? 'Mail is sent only from verified domains. ' : ''}
          Add the DNS records shown for a domain at your DNS provider, in the order of their steps; they are checked
          every 5 minutes, or now with “Verify now”.
        </p>
      </div>
      {capturing && <CaptureModeNotice />}

      {admin && <AddDomainForm projectId={project.id} />}

      <div className="stack" aria-busy={domains.isPending || undefined}>
        <QueryView
          query={domains}
          loading={<p>Loading…</p>}
          isEmpty={(found) => found.length === 0}
          empty={
            <EmptyState title="No domains yet">
              <p className="muted">Add the domain you send from, such as example.com, to get its DNS records.</p>
            </EmptyState>
          }
        >
          {(found) =>
            found.map((d) => (
              <DomainCard
                key={d.id}
                projectId={project.id}
                domain={d}
                onDelete={admin ? () => setDeleting(d) : undefined}
              />
            ))
          }
        </QueryView>
      </div>

      <DeleteDomainDialog projectId={project.id} domain={deleting} onClose={() => setDeleting(null)} />
    </section>
  );
}

/** Without SMTP_URL the service sends nothing: what that means, and how to send for real. */
function CaptureModeNotice() {
  return (
    <section className="notice stack" aria-labelledby="capture-title">
      <h2 id="capture-title">Capture mode: no mail leaves this service</h2>
      <p>
        No relay is configured, so every message is captured: it is stored and counted as sent, from any sender address,
        verified domain or not, and nothing leaves this machine. Open an email on the <Link to="/emails">Emails</Link>{' '}
        page to read or download it.
      </p>
      <p>
        To send for real, set <code>SMTP_URL</code> to your relay (<code>smtp://user:password@host:587</code>) and
        restart the service. From then on mail is sent only from the verified domains below.
      </p>
    </section>
  );
}
