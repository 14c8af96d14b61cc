import { useTopicList } from '../../api/topics.js';
import { SelectField } from '../../components/SelectField.js';

/**
 * The topic a template's (or a workflow step's) MARKETING emails are about: only the topic's members
 * receive them, and their unsubscribe link leaves only the topic.
 */
export function TopicSelect({
  projectId,
  value,
  onChange,
  error,
  label = 'Topic',
}: {
  projectId: string;
  value: string;
  onChange: (topicId: string) => void;
  error?: string;
  label?: string;
}) {
  const topics = useTopicList(projectId);
  const options = [
    { value: '', label: topics.isPending ? 'Loading topics…' : 'None: every subscribed contact' },
    ...(topics.data ?? []).map((t) => ({ value: t.id, label: t.name })),
  ];
  return (
    <SelectField
      label={label}
      value={value}
      options={options}
      onChange={onChange}
      hint={
        topics.isError ? 'The topics could not be loaded.' : 'Only contacts that receive the topic get these emails.'
      }
      error={error}
    />
  );
}
