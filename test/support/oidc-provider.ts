import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { cookieHeader, keepCookies } from './agent.js';

/** The client Postbox is registered as at the test provider. */
export const CLIENT = { id: 'postbox', secret: 'postbox-client-secret-for-tests' };
/** A login starting with this makes the provider say the address is not verified. */
export const UNVERIFIED = 'unverified:';

export interface TestProvider {
  issuer: string;
  stop(): Promise<void>;
}

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on a loopback port, with its
 * development login page, where any login and password sign in. The login is the person's address
 * (`UNVERIFIED` before it: not verified); consent is taken as given, as a company's provider does
 * for its own applications.
 */
export async function startOidcProvider(port: number, redirectUris: string[]): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: redirectUris }],
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        email: id.replace(UNVERIFIED, ''),
        email_verified: !id.startsWith(UNVERIFIED),
        name: id,
      }),
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const server: Server = provider.listen(port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    issuer,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The OIDC_* settings of a service that signs in through the test provider at `issuer`. */
export const providerEnv = (issuer: string, more: Record<string, string> = {}) => ({
  OIDC_ISSUER: issuer,
  OIDC_CLIENT_ID: CLIENT.id,
  OIDC_CLIENT_SECRET: CLIENT.secret,
  ...more,
});

/**
 * A browser for HTTP tests: one cookie jar for every port of 127.0.0.1 (cookies ignore ports), and
 * redirects followed by hand, so a test sees each step of a sign-in.
 */
export class SignInBrowser {
  readonly cookies = new Map<string, string>();

  async open(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, cookie: cookieHeader(this.cookies) },
    });
    keepCookies(this.cookies, res.headers);
    return res;
  }

  /**
   * Starts a sign-in at Postbox (`postboxUrl`), signs in at the provider's login page as `login`,
   * and returns the provider's answer: the callback address it redirects to, not opened yet.
   */
  async providerAnswer(postboxUrl: string, login: string): Promise<string> {
    const callback = `${postboxUrl}/auth/oidc/callback`;
    let url = `${postboxUrl}/auth/oidc/start`;
    let form: { method: string; headers: Record<string, string>; body: string } | undefined;
    for (let step = 0; step < 20; step++) {
      const res = await this.open(url, form);
      form = undefined;
      const location = res.headers.get('location');
      if (location) {
        url = new URL(location, url).href;
        if (url.startsWith(callback)) return url;
        continue;
      }
      const page = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      if (!action) throw new Error(`neither a redirect nor a form at ${url} (${res.status}): ${page.slice(0, 300)}`);
      url = new URL(action, url).href;
      form = {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
      };
    }
    throw new Error('the sign-in did not come back to Postbox within 20 steps');
  }
}
