import { type FormEvent, useState } from 'react';
import type { Topic } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { type TopicInput, useCreateTopic, useDeleteTopic, useUpdateTopic } from './topics-api.js';

/** Creates a topic, or edits one when `topic` is given; the server's errors show beside their fields. */
export function TopicDialog({
  projectId,
  topic,
  open,
  onClose,
}: {
  projectId: string;
  topic?: Topic;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} title={topic ? `Edit ${topic.name}` : 'New topic'} onClose={onClose}>
      {/* A new editor for each topic opened, so its fields start from that topic. */}
      <TopicEditor key={topic?.id ?? 'new'} projectId={projectId} topic={topic} onClose={onClose} />
    </Dialog>
  );
}

function TopicEditor({ projectId, topic, onClose }: { projectId: string; topic?: Topic; onClose: () => void }) {
  const create = useCreateTopic(projectId);
  const update = useUpdateTopic(projectId);
  const remove = useDeleteTopic(projectId);
  const saving = topic ? update : create;
  const [name, setName] = useState(topic?.name ?? '');
  const [description, setDescription] = useState(topic?.description ?? '');
  const [isPublic, setPublic] = useState(topic?.public ?? true);
  const [defaultOn, setDefaultOn] = useState(topic?.defaultOn ?? false);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const server = saving.error instanceof ApiError ? fieldMessages(saving.error.fieldErrors) : {};
  const message = formMessage(saving.error, ['name', 'description']);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: TopicInput = { name: name.trim(), description: description.trim(), public: isPublic, defaultOn };
    if (topic) update.mutate({ id: topic.id, ...body }, { onSuccess: onClose });
    else create.mutate(body, { onSuccess: onClose });
  };

  return (
    <form className="stack" onSubmit={submit} noValidate>
      {message && <Alert>{message}</Alert>}
      <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} error={server.name} required />
      <Field
        label="Description (optional)"
        hint="Shown under the name in the preference center."
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={server.description}
      />
      <label className="check-row">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />
        Public: contacts see it in the preference center and choose it themselves
      </label>
      <label className="check-row">
        <input type="checkbox" checked={defaultOn} onChange={(e) => setDefaultOn(e.target.checked)} />
        On for new contacts until they choose otherwise
      </label>
      <DialogActions
        busy={saving.isPending}
        label={topic ? 'Save changes' : 'Create topic'}
        busyLabel="Saving…"
        onCancel={onClose}
      />
      {topic &&
        (confirmDelete ? (
          <div className="stack topic-delete">
            <p>
              Delete {topic.name}? Contacts’ choices for it are removed, and campaigns about it can no longer be sent.
            </p>
            <div className="cluster">
              <button
                type="button"
                className="button button-danger"
                disabled={remove.isPending}
                onClick={() => remove.mutate(topic.id, { onSuccess: onClose })}
              >
                {remove.isPending ? 'Deleting…' : 'Delete it'}
              </button>
              <button type="button" className="button" onClick={() => setConfirmDelete(false)}>
                Keep it
              </button>
            </div>
          </div>
        ) : (
          <button type="button" className="button button-danger topic-delete" onClick={() => setConfirmDelete(true)}>
            Delete this topic
          </button>
        ))}
    </form>
  );
}
