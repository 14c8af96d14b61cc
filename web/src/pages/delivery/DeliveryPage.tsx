import { roleAtLeast } from '../../../../src/domain/roles.js';
import { QueryView } from '../../components/QueryView.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { useDeliverySettings } from './delivery-api.js';
import { LimitsSection } from './LimitsSection.js';
import { WarmupsSection } from './WarmupsSection.js';
import './delivery.css';

export default function DeliveryPage() {
  usePageTitle('Delivery');
  const project = useCurrentProject();
  const settings = useDeliverySettings(project.id);
  // The API lets admins change pacing and members read it; the page offers the same.
  const admin = roleAtLeast(project.role, 'admin');

  return (
    <section aria-labelledby="delivery-title" className="stack delivery">
      <div className="page-heading">
        <h1 id="delivery-title">Delivery</h1>
        <p className="muted">
          How fast campaign email goes out. Transactional email (sends and workflows) is never held back.
        </p>
      </div>
      {!admin && (
        <p className="notice">You can see these settings; only an admin or owner of the project can change them.</p>
      )}
      <div className="stack delivery-sections" aria-busy={settings.isPending || undefined}>
        <QueryView query={settings} loading={<p>Loading…</p>}>
          {(found) => (
            <>
              <WarmupsSection projectId={project.id} settings={found} admin={admin} />
              <LimitsSection projectId={project.id} settings={found} admin={admin} />
            </>
          )}
        </QueryView>
      </div>
    </section>
  );
}
