import type { Template } from '../../../../src/api.js';
import { useDeleteTemplate, useTemplateUsage } from '../../api/templates.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
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
  const used = usage.data && (usage.data.campaigns.length > 0 || usage.data.workflows.length > 0);

  return (
    <ConfirmDialog
      open={open}
      title={`Delete “${template.name}”?`}
      mutation={remove}
      confirmLabel="Delete template"
      pendingLabel="Deleting…"
      onConfirm={() => remove.mutate(template.id, { onSuccess: onDeleted })}
      onClose={onClose}
    >
      <p>
        The template is deleted for good.{' '}
        {usage.data
          ? used
            ? `${usageSentence(usage.data)} Workflow steps that send it will fail; emails already sent are not changed.`
            : usageSentence(usage.data)
          : ''}
      </p>
    </ConfirmDialog>
  );
}
