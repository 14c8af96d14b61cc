declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  interface AccountClaims {
    sub: string;
    [claim: string]: unknown;
  }
  interface Account {
    accountId: string;
    claims(): AccountClaims;
  }
  interface ProviderGrant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface InteractionContext {
    oidc: {
      client: { clientId: string };
      session: { accountId: string };
      provider: { Grant: new (init: { clientId: string; accountId: string }) => ProviderGrant };
    };
  }
  interface Configuration {
    clients: { client_id: string; client_secret: string; redirect_uris: string[] }[];
    findAccount(ctx: unknown, id: string): Account | Promise<Account>;
    claims?: Record<string, string[]>;
    loadExistingGrant?(ctx: InteractionContext): Promise<ProviderGrant>;
    pkce?: { required?: () => boolean };
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    listen(port: number, host: string): Server;
  }
}
