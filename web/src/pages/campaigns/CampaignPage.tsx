import { lazy, Suspense } from 'react';
import { useParams } from 'react-router-dom';
import type { Campaign } from '../../../../src/api.js';
import { ApiError } from '../../api/errors.js';
import { RetryAlert } from '../../components/Alert.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { NotFoundPage } from '../../shell/NotFoundPage.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { CampaignComposer } from './CampaignComposer.js';
import { useCampaign } from './campaigns-api.js';
import './campaigns.css';

// The report (its chart above all) is not needed to write a draft.
const CampaignReport = lazy(() => import('./CampaignReport.js'));

/** Drafts and scheduled campaigns can still change: they open in the composer. */
const isEditable = (c: Campaign) => c.status === 'DRAFT' || c.status === 'SCHEDULED';

/**
 * `/campaigns/new` and `/campaigns/:id`, one route, so the composer stays mounted (and keeps what is
 * being typed) when its first autosave creates the campaign and the address becomes its id.
 */
export default function CampaignPage() {
  const { id: param } = useParams();
  const id = param === 'new' ? undefined : param;
  const project = useCurrentProject();
  const campaign = useCampaign(project.id, id);
  usePageTitle(id === undefined ? 'New campaign' : (campaign.data?.name ?? 'Campaign'));

  if (id === undefined) return <CampaignComposer key="composer" projectId={project.id} campaign={null} />;
  if (campaign.isPending) return <p aria-busy="true">Loading…</p>;
  if (campaign.isError) {
    if (campaign.error instanceof ApiError && (campaign.error.status === 404 || campaign.error.status === 422))
      return <NotFoundPage />;
    return <RetryAlert error={campaign.error} onRetry={() => campaign.refetch()} />;
  }
  if (isEditable(campaign.data))
    return <CampaignComposer key="composer" projectId={project.id} campaign={campaign.data} />;
  return (
    <Suspense fallback={<p aria-busy="true">Loading the report…</p>}>
      <CampaignReport projectId={project.id} campaign={campaign.data} />
    </Suspense>
  );
}
