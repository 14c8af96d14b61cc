import { useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { InvitePreview } from '../../../../src/api.js';
import { MIN_PASSWORD_LENGTH } from '../../../../src/domain/password-rules.js';
import { meKey, useMe, useSignIn, useSignInMethods, useSignOut } from '../../api/auth.js';
import { ApiError, errorMessage, fieldMessages, formMessage } from '../../api/errors.js';
import { useAcceptInvite, useInvitePreview } from '../../api/members.js';
import { rememberProject } from '../../api/projects.js';
import { Alert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';
import { AuthLayout } from '../../shell/AuthLayout.js';

const article = (role: string) => (role === 'member' ? 'a member' : `an ${role}`);

/**
 * `/app/invite/<token>`: who invites to what, then accepting as the signed-in user, or signing in
 * or creating the invited address's account first. Reached signed in or not.
 */
export default function InvitePage({ token }: { token: string }) {
  const preview = useInvitePreview(token);
  const me = useMe();
  // "SSO only": the provider signs in and makes accounts, instead of a password.
  const sso = useSignInMethods().data;
  const providerOnly = sso?.sso && !sso.passwordSignIn ? sso.sso : null;

  if (preview.isPending || me.isPending) {
    return (
      <AuthLayout title="Invitation">
        <p aria-busy="true">Loading…</p>
      </AuthLayout>
    );
  }
  if (preview.isError) {
    return (
      <AuthLayout title="Invitation not found">
        <Alert>{errorMessage(preview.error)}</Alert>
        <p>
          <Link to="/">Open the dashboard</Link>
        </p>
      </AuthLayout>
    );
  }
  const invite = preview.data;
  const { email, projectName } = invite;
  const intro = (
    <p className="muted">
      {invite.invitedBy ?? 'Someone'} invites <strong>{email}</strong> to <strong>{projectName}</strong> as{' '}
      {article(invite.role)}.
    </p>
  );
  if (invite.status !== 'pending') {
    return (
      <AuthLayout title={invite.status === 'expired' ? 'This invitation has expired' : 'Invitation already accepted'}>
        <p>
          {invite.status === 'expired'
            ? 'Ask the person who invited you for a new link.'
            : 'It can be used once. Sign in to open the project, or ask for a new invitation.'}
        </p>
        <p>
          <Link to="/">Open the dashboard</Link>
        </p>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title={`Join ${invite.projectName}`} intro={intro}>
      {me.data ? (
        me.data.email === invite.email ? (
          <AcceptAsUser token={token} />
        ) : (
          <WrongAccount signedInAs={me.data.email} invite={invite} />
        )
      ) : providerOnly ? (
        <>
          <p>
            {invite.accountExists
              ? `Sign in as ${invite.email} with ${providerOnly.providerName}, then open this link again to accept.`
              : `Sign in as ${invite.email} with ${providerOnly.providerName}: your account is made and joins the project.`}
          </p>
          <a className="button button-primary" href={providerOnly.startUrl}>
            Sign in with {providerOnly.providerName}
          </a>
        </>
      ) : invite.accountExists ? (
        <SignInToAccept email={invite.email} />
      ) : (
        <CreateAccount token={token} email={invite.email} />
      )}
    </AuthLayout>
  );
}

/** After accepting, the dashboard opens on the project joined. */
function useJoined() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return async ({ projectId }: { projectId: string }) => {
    rememberProject(projectId);
    await queryClient.invalidateQueries({ queryKey: meKey });
    navigate('/', { replace: true });
  };
}

function AcceptAsUser({ token }: { token: string }) {
  const accept = useAcceptInvite(token);
  const joined = useJoined();
  return (
    <div className="stack">
      {accept.isError && <Alert>{errorMessage(accept.error)}</Alert>}
      <button
        type="button"
        className="button button-primary"
        disabled={accept.isPending}
        onClick={() => accept.mutate(undefined, { onSuccess: joined })}
      >
        {accept.isPending ? 'Joining…' : 'Accept invitation'}
      </button>
    </div>
  );
}

function WrongAccount({ signedInAs, invite }: { signedInAs: string; invite: InvitePreview }) {
  const signOut = useSignOut();
  return (
    <div className="stack">
      <Alert>
        You are signed in as {signedInAs}, but this invitation is for {invite.email}. Sign out, then open the link
        again.
      </Alert>
      <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        Sign out
      </button>
    </div>
  );
}

function SignInToAccept({ email }: { email: string }) {
  const signIn = useSignIn();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    signIn.mutate({ email, password: String(new FormData(event.currentTarget).get('password') ?? '') });
  };
  const message = formMessage(signIn.error, ['password']);
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <p>{email} has an account: sign in to accept.</p>
      {message && <Alert>{message}</Alert>}
      <Field label="Email" name="email" type="email" value={email} readOnly autoComplete="username" />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      <button type="submit" className="button button-primary" disabled={signIn.isPending}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function CreateAccount({ token, email }: { token: string; email: string }) {
  const accept = useAcceptInvite(token);
  const joined = useJoined();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    accept.mutate(String(new FormData(event.currentTarget).get('password') ?? ''), { onSuccess: joined });
  };
  const fields = accept.error instanceof ApiError ? fieldMessages(accept.error.fieldErrors) : {};
  const message = formMessage(accept.error, ['password']);
  return (
    <form className="stack" onSubmit={submit} noValidate>
      {message && <Alert>{message}</Alert>}
      <Field label="Email" name="email" type="email" value={email} readOnly autoComplete="username" />
      <Field
        label="Choose a password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        error={fields.password}
      />
      <button type="submit" className="button button-primary" disabled={accept.isPending}>
        {accept.isPending ? 'Creating…' : 'Create account and join'}
      </button>
    </form>
  );
}
