import { z } from 'zod';
import { ROLES } from '../../domain/roles.js';

/** How people sign in to this instance, for the sign-in page (no session needed). */
export const signInMethodsSchema = z.object({
  /** The OpenID Connect provider, when single sign-on is configured. */
  sso: z.object({ providerName: z.string(), startUrl: z.string() }).nullable(),
  /** False in "SSO only" mode: POST /auth/login is refused and the page goes to the provider. */
  passwordSignIn: z.boolean(),
});
export type SignInMethods = z.infer<typeof signInMethodsSchema>;

/** The single sign-on configuration as the environment sets it, for instance admins; never the secret. */
export const ssoSettingsSchema = z.object({
  enabled: z.boolean(),
  issuer: z.string().nullable(),
  providerName: z.string().nullable(),
  clientId: z.string().nullable(),
  /** The address to register at the provider as the client's redirect URI. */
  redirectUri: z.string(),
  /** The email domains that may sign in; `any`: every address the provider has verified. */
  allowedDomains: z.union([z.array(z.string()), z.literal('any')]),
  /** OIDC_PROJECT as set, and the project it names (null when it names none). */
  projectSetting: z.string().nullable(),
  project: z.object({ id: z.string().uuid(), name: z.string() }).nullable(),
  /** The role a new account gets in that project. */
  role: z.enum(ROLES),
  ssoOnly: z.boolean(),
});
export type SsoSettingsView = z.infer<typeof ssoSettingsSchema>;
