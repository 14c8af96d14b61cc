import type { Template } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { useDeleteTemplate, useTemplateUsage } from '../../api/templates.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { usageSentence } from './template-form.js';

export function DeleteTemplateDialog({
  projectId,
  template,
  open,
  onClose,
  onDeleted,
}: {
  projectId: string;
  template: Template;
  open: boolean;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const remove = useDeleteTemplate(projectId);
  const usage = useTemplateUsage(projectId, template.id);
  const close = () => {
    remove.reset();
    onClose();
  };
  const used = usage.data && (usage.data.campaigns.length > 0 || usage.data.workflows.length > 0);

  return (
    <Dialog open={open} title={`Delete “${template.name}”?`} onClose={close} busy={remove.isPending}>
      <p>
        The template is deleted for good.{' '}
        {usage.data
          ? used
            ? `${usageSentence(usage.data)} Workflow steps that send it will fail; emails already sent are not changed.`
            : usageSentence(usage.data)
          : ''}
      </p>
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={close} disabled={remove.isPending}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={remove.isPending}
          onClick={() => remove.mutate(template.id, { onSuccess: onDeleted })}
        >
          {remove.isPending ? 'Deleting…' : 'Delete template'}
        </button>
      </div>
    </Dialog>
  );
}
