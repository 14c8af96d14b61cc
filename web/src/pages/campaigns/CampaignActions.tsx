import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Campaign } from '../../../../src/api.js';
import { isApiError } from '../../api/client.js';
import { ApiError, errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { useCampaignAction, useDeleteCampaign } from './campaigns-api.js';

/** Duplicate and delete, beside a campaign's heading. */
export function CampaignActions({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const navigate = useNavigate();
  const action = useCampaignAction(projectId, campaign.id);
  const remove = useDeleteCampaign(projectId);
  const [deleting, setDeleting] = useState(false);
  // The API refuses (409) to delete a campaign while it is being sent: say why and what to do.
  const refusal = isApiError(remove.error, 409)
    ? new ApiError(
        409,
        remove.error.code,
        `“${campaign.name}” is being sent, so it cannot be deleted. Cancel it first (what was sent stays sent), then delete it.`,
      )
    : null;

  return (
    <div className="editor-actions">
      <button
        type="button"
        className="button"
        disabled={action.isPending}
        onClick={() =>
          action.mutate({ action: 'duplicate' }, { onSuccess: (copy) => navigate(`/campaigns/${copy.data.id}`) })
        }
      >
        {action.isPending ? 'Duplicating…' : 'Duplicate'}
      </button>
      <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
        Delete
      </button>
      {action.isError && <Alert>{errorMessage(action.error)}</Alert>}
      <ConfirmDialog
        open={deleting}
        title="Delete the campaign?"
        onClose={() => setDeleting(false)}
        mutation={{ isPending: remove.isPending, error: refusal ?? remove.error, reset: remove.reset }}
        confirmLabel="Delete"
        pendingLabel="Deleting…"
        onConfirm={() =>
          remove.mutate(campaign.id, {
            onSuccess: () => {
              setDeleting(false);
              navigate('/campaigns', { replace: true });
            },
          })
        }
      >
        <p>“{campaign.name}” and its report are deleted for good. The emails it sent stay in the Emails list.</p>
      </ConfirmDialog>
    </div>
  );
}
