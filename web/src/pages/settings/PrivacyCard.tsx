import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import type { PrivacySettings, PrivacySettingsPatch, Project } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';
import { QueryView } from '../../components/QueryView.js';
import { type DayField, type PrivacyDraft, privacyDraft, privacyPatch } from './privacy-settings.js';
import { settingsAllowed } from './project-settings.js';

const settingsKey = (projectId: string) => ['privacy-settings', projectId] as const;

/** How long the project keeps events, email contents and inbound mail, and what an erase keeps. */
export function PrivacyCard({ project }: { project: Project }) {
  const settings = useQuery({
    queryKey: settingsKey(project.id),
    queryFn: ({ signal }) => api<PrivacySettings>('GET', '/privacy-settings', { projectId: project.id, signal }),
  });
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId} aria-busy={settings.isPending || undefined}>
      <h2 id={headingId}>Privacy and retention</h2>
      <p className="muted">
        What is older than these days is removed every hour, a little at a time. Emails stay listed with their
        recipient, subject and status; only their content goes. Empty keeps for ever.
      </p>
      <QueryView query={settings} loading={<p>Loading…</p>} retry="small">
        {(saved) => <PrivacyForm project={project} saved={saved} />}
      </QueryView>
    </section>
  );
}

/** The retention fields in the order shown; an empty events field falls back to the instance's limit. */
function dayFields(instanceDays: number | null): { name: DayField; label: string; hint: string }[] {
  return [
    {
      name: 'eventRetentionDays',
      label: 'Events (days)',
      hint: instanceDays ? `Empty: the instance’s ${instanceDays} days.` : 'Empty: the instance’s default, for ever.',
    },
    {
      name: 'emailBodyRetentionDays',
      label: 'Email contents (days)',
      hint: 'The body, text, headers and attachments of sent emails.',
    },
    { name: 'inboundRetentionDays', label: 'Inbound mail (days)', hint: 'Replies and other mail received.' },
  ];
}

function PrivacyForm({ project, saved }: { project: Project; saved: PrivacySettings }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (body: PrivacySettingsPatch) =>
      api<PrivacySettings>('PATCH', '/privacy-settings', { projectId: project.id, body }),
    onSuccess: (now) => queryClient.setQueryData(settingsKey(project.id), now),
  });
  const allowed = settingsAllowed(project).tracking;
  const [draft, setDraft] = useState<PrivacyDraft>(privacyDraft(saved));
  const [shown, setShown] = useState<ReturnType<typeof privacyPatch>['problems']>({});
  const [savedNote, setSavedNote] = useState(false);
  const set = (change: Partial<PrivacyDraft>) => {
    setDraft({ ...draft, ...change });
    setSavedNote(false);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { patch, problems } = privacyPatch(saved, draft);
    setShown(problems);
    setSavedNote(false);
    if (patch)
      update.mutate(patch, {
        onSuccess: (now) => {
          setDraft(privacyDraft(now));
          setSavedNote(true);
        },
      });
  };
  return (
    <form className="stack" noValidate onSubmit={submit}>
      <div className="settings-row">
        {dayFields(saved.instanceEventRetentionDays).map(({ name, label, hint }) => (
          <Field
            key={name}
            label={label}
            name={name}
            inputMode="numeric"
            value={draft[name]}
            onChange={(e) => set({ [name]: e.target.value })}
            error={shown[name]}
            hint={hint}
          />
        ))}
      </div>
      <label className="require-two-factor">
        <input
          type="checkbox"
          name="keepErasedAddresses"
          checked={draft.keepErasedAddresses}
          onChange={(e) => set({ keepErasedAddresses: e.target.checked })}
        />
        Keep erased addresses out
      </label>
      <p className="muted small">
        An erased contact leaves only a salted hash of its address, so that an import, a tracked event, the API or a
        form cannot add the address again ({saved.erasedAddresses.toLocaleString('en')} kept now). Turning this off
        deletes those hashes: every erased address may come back.
      </p>
      <p>
        <button type="submit" className="button button-primary" disabled={update.isPending || !allowed}>
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
      </p>
      {!allowed && <p className="muted small">Only an admin or owner of the project can change these.</p>}
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
      <p role="status" className="settings-saved">
        {savedNote ? 'Saved.' : ''}
      </p>
    </form>
  );
}
