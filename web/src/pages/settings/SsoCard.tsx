import { type ReactNode, useId } from 'react';
import type { SsoSettingsView } from '../../../../src/api.js';
import { useSsoSettings } from '../../api/instance.js';
import { QueryView } from '../../components/QueryView.js';

/**
 * Single sign-on as the server's environment sets it (OIDC_*), for instance admins: shown, never
 * changed here, and never with the client secret.
 */
export function SsoCard() {
  const settings = useSsoSettings(true);
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId} aria-busy={settings.isPending || undefined}>
      <h2 id={headingId}>Single sign-on</h2>
      <QueryView query={settings} loading={<p>Loading…</p>} retry="small">
        {(sso) => (sso.enabled ? <SsoDetails sso={sso} /> : <SsoOff redirectUri={sso.redirectUri} />)}
      </QueryView>
    </section>
  );
}

function SsoDetails({ sso }: { sso: SsoSettingsView }) {
  return (
    <>
      <p className="muted">
        People sign in through {sso.providerName}, matched to their account by the email address it has verified. Set in
        the server's environment (<code>OIDC_*</code>): change it there and restart.
      </p>
      <dl className="envelope">
        <Setting label="Provider">{sso.providerName}</Setting>
        <Setting label="Issuer">
          <code>{sso.issuer}</code>
        </Setting>
        <Setting label="Client ID">
          <code>{sso.clientId}</code> <span className="muted">(the secret is never shown)</span>
        </Setting>
        <Setting label="Redirect URI">
          <code>{sso.redirectUri}</code>
        </Setting>
        <Setting label="Allowed domains">
          {sso.allowedDomains === 'any' ? 'Any address the provider has verified' : sso.allowedDomains.join(', ')}
        </Setting>
        <Setting label="New accounts">
          <NewAccounts sso={sso} />
        </Setting>
        <Setting label="Password sign-in">
          {sso.ssoOnly ? `Off: ${sso.providerName} is the only way in (SSO only)` : 'On, beside single sign-on'}
        </Setting>
      </dl>
    </>
  );
}

function Setting({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function NewAccounts({ sso }: { sso: SsoSettingsView }) {
  if (!sso.projectSetting) return <>Join no project (they accept their invitations)</>;
  if (!sso.project) {
    return (
      <span className="sso-problem">
        <code>OIDC_PROJECT</code> “{sso.projectSetting}” names no project (or several): new people are refused until it
        names one.
      </span>
    );
  }
  return (
    <>
      Join {sso.project.name} as {sso.role}, and accept their invitations
    </>
  );
}

function SsoOff({ redirectUri }: { redirectUri: string }) {
  return (
    <>
      <p>
        Off: people sign in with their email and password. To sign in through your company's OpenID Connect provider
        (Keycloak, Authentik, Google Workspace, Entra ID, Okta), register Postbox there with the redirect URI{' '}
        <code>{redirectUri}</code>, then set <code>OIDC_ISSUER</code>, <code>OIDC_CLIENT_ID</code>,{' '}
        <code>OIDC_CLIENT_SECRET</code> and <code>OIDC_ALLOWED_DOMAINS</code> on the server and restart it.
      </p>
      <p className="muted small">docs/operations.md, “Single sign-on”, lists every setting.</p>
    </>
  );
}
