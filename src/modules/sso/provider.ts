import * as oidc from 'openid-client';
import type { ProviderClaims, SsoSettings } from '../../domain/sso.js';

/** Every request to the provider (discovery, keys, token, userinfo) gives up after this. */
const TIMEOUT_SECONDS = 10;
const SCOPE = 'openid email profile';

/** What a sign-in keeps between its start and the provider's answer. */
export interface SignInChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The provider could not be reached, or did not answer in time: the sign-in may be tried again. */
export class ProviderUnreachable extends Error {}

/**
 * The OpenID Connect provider, through openid-client: its metadata is discovered on the first
 * sign-in and kept; a discovery that failed is tried again on the next one.
 */
export class OidcProvider {
  private configuration: Promise<oidc.Configuration> | null = null;

  constructor(private readonly settings: SsoSettings) {}

  /** Where the browser goes to sign in: the authorization code flow with PKCE, state and nonce. */
  async authorizationUrl(redirectUri: string, checks: SignInChecks): Promise<URL> {
    const config = await this.config();
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  /**
   * The claims of the person the provider's answer (`callbackUrl`) signs in: the code is exchanged
   * and the ID token checked (signature, issuer, audience, nonce). The address comes from the ID
   * token, or from the userinfo endpoint when the token does not carry it.
   */
  async claims(callbackUrl: URL, checks: SignInChecks): Promise<ProviderClaims> {
    const config = await this.config();
    const tokens = await reachable(
      oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      }),
    );
    const idToken = tokens.claims()!;
    if (idToken.email !== undefined && (idToken.email_verified ?? idToken.xms_edov) !== undefined) return idToken;
    return reachable(oidc.fetchUserInfo(config, tokens.access_token, idToken.sub));
  }

  private config(): Promise<oidc.Configuration> {
    this.configuration ??= this.discover().catch((err) => {
      this.configuration = null;
      throw err;
    });
    return this.configuration;
  }

  private async discover(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    // Plain HTTP is accepted by the configuration on loopback only (domain/sso.ts issuerProblem).
    const insecure = new URL(issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    const config = await reachable(
      oidc.discovery(new URL(issuer), clientId, clientSecret, undefined, {
        timeout: TIMEOUT_SECONDS,
        execute: insecure,
      }),
    );
    config.timeout = TIMEOUT_SECONDS;
    return config;
  }
}

/** Tells a provider that cannot be reached apart from one that answers wrongly. */
async function reachable<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (err) {
    const network = err instanceof TypeError && err.message === 'fetch failed';
    const timedOut = err instanceof oidc.ClientError && (err.code === 'OAUTH_TIMEOUT' || err.code === 'OAUTH_ABORT');
    throw network || timedOut ? new ProviderUnreachable(String((err as Error).message), { cause: err }) : err;
  }
}
