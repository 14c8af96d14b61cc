import { useState } from 'react';
import type { Domain } from '../../../../src/api.js';
import { useDomains } from '../../api/domains.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { AddDomainForm } from './AddDomainForm.js';
import { DeleteDomainDialog } from './DeleteDomainDialog.js';
import { DomainCard } from './DomainCard.js';

export default function DomainsPage() {
  usePageTitle('Domains');
  const project = useCurrentProject();
  const domains = useDomains(project.id);
  const [deleting, setDeleting] = useState<Domain | null>(null);
  // Adding and deleting domains takes an admin (the API refuses members); members read them.
  const admin = project.role !== 'member';

  return (
    <section aria-labelledby="domains-title" className="stack">
      <div className="page-heading">
        <h1 id="domains-title">Domains</h1>
        <p className="muted">
          Mail is sent only from verified domains. Add the DNS records shown for a domain at your DNS provider; they are
          checked every 5 minutes, or now with “Verify now”.
        </p>
      </div>

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
