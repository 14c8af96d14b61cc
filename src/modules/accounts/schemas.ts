import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { canonicalTimeZone, isTimeZone } from '../../domain/local-time.js';
import { MIN_PASSWORD_LENGTH } from '../../domain/password-rules.js';
import { ROLES } from '../../domain/roles.js';

export const loginBody = z.object({ email: emailSchema, password: z.string().min(1).max(1000) });
export const newPassword = z.string().min(MIN_PASSWORD_LENGTH, `At least ${MIN_PASSWORD_LENGTH} characters`).max(1000);

export const setupStateSchema = z.object({ required: z.boolean() });
export const setupBody = z.object({ token: z.string().min(1).max(200), email: emailSchema, password: newPassword });

export const userSchema = z.object({ id: z.string().uuid(), email: z.string(), createdAt: z.string() });
export type User = z.infer<typeof userSchema>;

export const projectSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  disabled: z.boolean(),
  /** Members must sign in with a second factor to use the project. */
  requireTwoFactor: z.boolean(),
  /** The IANA zone of contacts whose data names none, for a workflow's DELAY until a time of day. */
  timezone: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The signed-in user's role in the project. */
  role: z.enum(ROLES),
});
export type Project = z.infer<typeof projectSchema>;
/** The keys are shown once, when they are made; only their hashes are stored. */
export const projectWithKeysSchema = projectSchema.extend({ publicKey: z.string(), secretKey: z.string() });

/** An IANA time-zone name this server's runtime knows, such as `Europe/Paris`, stored as the runtime spells it. */
const timeZoneSchema = z
  .string()
  .trim()
  .refine(isTimeZone, { message: 'Not a time zone this server knows: an IANA name such as Europe/Paris' })
  .transform((name) => canonicalTimeZone(name)!);

export const createProjectBody = z.object({ name: z.string().trim().min(1).max(255) });
export const patchProjectBody = z.object({
  name: z.string().trim().min(1).max(255).optional(),
  disabled: z.boolean().optional(),
  /** Owners only: members must sign in with a second factor to use the project. */
  requireTwoFactor: z.boolean().optional(),
  /** Admins, like the name. */
  timezone: timeZoneSchema.optional(),
});
export const projectIdParams = z.object({ id: z.string().uuid() });

/** Who may create projects on the instance (docs/operations.md, "Who may create projects"). */
export const PROJECT_CREATION = ['everyone', 'admins'] as const;
export const projectCreationSchema = z.enum(PROJECT_CREATION);
export type ProjectCreation = z.infer<typeof projectCreationSchema>;

export const instanceAdminSchema = z.object({
  userId: z.string().uuid(),
  email: z.string(),
  /** The first user, who set the instance up: always an instance admin. */
  first: z.boolean(),
});
export const instanceSettingsSchema = z.object({
  projectCreation: projectCreationSchema,
  admins: z.array(instanceAdminSchema),
});
export type InstanceSettings = z.infer<typeof instanceSettingsSchema>;
export const patchInstanceSettingsBody = z.object({ projectCreation: projectCreationSchema });
export const instanceAdminBody = z.object({ email: emailSchema });
export const instanceAdminParams = z.object({ userId: z.string().uuid() });

/** What the signed-in user may do on the instance, for the dashboard to show only that. */
export const permissionsSchema = z.object({ instanceAdmin: z.boolean(), createProjects: z.boolean() });
export type Permissions = z.infer<typeof permissionsSchema>;

/** The signed-in user, with what the dashboard needs to know of their second factor. */
export const meSchema = userSchema.extend({
  twoFactorEnabled: z.boolean(),
  /** A project of theirs requires two-factor sign-in: without it enabled, the dashboard asks to enrol. */
  twoFactorRequired: z.boolean(),
});
export type Me = z.infer<typeof meSchema>;
/** A right password of an account with a second factor: POST /auth/login/second-factor comes next. */
export const secondFactorChallengeSchema = z.object({ secondFactorRequired: z.literal(true) });
export const loginResultSchema = z.union([meSchema, secondFactorChallengeSchema]);

export const userSessionSchema = z.object({
  id: z.string().uuid(),
  /** The session of the request that asked. */
  current: z.boolean(),
  /** "Firefox on Windows", read from the user agent. */
  device: z.string(),
  userAgent: z.string(),
  /** The address it was last seen from. */
  ip: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
  /** Opened (or confirmed) with a second factor. */
  secondFactor: z.boolean(),
});
export type UserSession = z.infer<typeof userSessionSchema>;
export const sessionParams = z.object({ id: z.string().uuid() });
export const changePasswordBody = z.object({ currentPassword: z.string().min(1).max(1000), newPassword });
export const endedSessionsSchema = z.object({ endedSessions: z.number().int() });
export const memberSessionsParams = z.object({ id: z.string().uuid(), userId: z.string().uuid() });
export const endedMemberSessionsSchema = z.object({ ended: z.number().int() });
