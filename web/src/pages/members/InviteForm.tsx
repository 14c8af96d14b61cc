import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router-dom';
import type { CreatedInvite, Role } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { useCreateInvite } from '../../api/members.js';
import { Alert } from '../../components/Alert.js';
import { CopyButton } from '../../components/CopyButton.js';
import { Field } from '../../components/Field.js';
import { formatDate } from '../../format/dates.js';
import { ROLE_LABELS, rolesGrantable } from './roles.js';

/** Makes an invitation and shows its link: the only time it can be read, since only its hash is kept. */
export function InviteForm({ projectId, role }: { projectId: string; role: Role }) {
  const create = useCreateInvite(projectId);
  const [made, setMade] = useState<CreatedInvite | null>(null);
  const roleId = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const sendFrom = String(form.get('sendFrom') ?? '').trim();
    const body = {
      email: String(form.get('email') ?? '').trim(),
      role: String(form.get('role')) as Role,
      ...(sendFrom ? { sendFrom } : {}),
    };
    setMade(null);
    create.mutate(body, {
      onSuccess: (invite) => {
        setMade(invite);
        formElement.reset();
      },
    });
  };

  const fields = create.error instanceof ApiError ? fieldMessages(create.error.fieldErrors) : {};
  const message = formMessage(create.error, ['email', 'role', 'sendFrom']);
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      {message && <Alert>{message}</Alert>}
      <div className="invite-row">
        <Field label="Email" name="email" type="email" autoComplete="off" required error={fields.email} />
        <div className="field">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} name="role" defaultValue="member">
            {rolesGrantable(role).map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Inviting…' : 'Create invitation'}
        </button>
      </div>
      <Field
        label="Send the link by mail from (optional)"
        name="sendFrom"
        type="email"
        autoComplete="off"
        hint="An address on one of the project's verified domains. Leave it empty to send the link yourself."
        error={fields.sendFrom}
      />
      {made && (
        <div className="notice stack" role="status">
          <p>
            {made.emailId ? (
              <>
                Emailed to <strong>{made.email}</strong> (<Link to={`/emails/${made.emailId}`}>the email</Link>); you
                can also send the link yourself.
              </>
            ) : (
              <>
                Send this link to <strong>{made.email}</strong>.
              </>
            )}{' '}
            It works once, until {formatDate(made.expiresAt)}, and is shown only now.
          </p>
          <div className="key-row">
            <code className="key-value invite-link">{made.url}</code>
            <CopyButton value={made.url} label={`Copy the invitation link for ${made.email}`} />
          </div>
        </div>
      )}
    </form>
  );
}
