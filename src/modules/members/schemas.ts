import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { MIN_PASSWORD_LENGTH } from '../../domain/password-rules.js';
import { ROLES } from '../../domain/roles.js';

export const roleSchema = z.enum(ROLES);

export const memberSchema = z.object({
  userId: z.string().uuid(),
  email: z.string(),
  role: roleSchema,
  createdAt: z.string(),
  /** Signs in with a second factor (two-factor sign-in is on for their account). */
  twoFactor: z.boolean(),
});
export type Member = z.infer<typeof memberSchema>;

export const inviteSchema = z.object({
  id: z.string().uuid(),
  projectId: z.string().uuid(),
  email: z.string(),
  role: roleSchema,
  /** The address of whoever sent it; null once their account is gone. */
  invitedBy: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type Invite = z.infer<typeof inviteSchema>;

/**
 * What removing or re-roling a member also did: the pending invitations they had made and may no
 * longer grant were withdrawn (all of them when they leave the project), so their links open nothing.
 */
const withdrawn = { withdrawnInvites: z.array(inviteSchema) };
export const changedMemberSchema = memberSchema.extend(withdrawn);
export type ChangedMember = z.infer<typeof changedMemberSchema>;
export const removedMemberSchema = z.object(withdrawn);
/** What removing a member answers; re-roling one answers the member with it. */
export type WithdrawnInvites = z.infer<typeof removedMemberSchema>;
/** The link is shown once, when the invitation is made; only its hash is stored. */
export const createdInviteSchema = inviteSchema.extend({
  url: z.string(),
  /** The email that carries the link, when `sendFrom` was given (GET /emails/{id}). */
  emailId: z.string().uuid().optional(),
});
export type CreatedInvite = z.infer<typeof createdInviteSchema>;

export const INVITE_STATES = ['pending', 'expired', 'accepted'] as const;
/** What the person holding the link is told before accepting. */
export const invitePreviewSchema = z.object({
  projectName: z.string(),
  email: z.string(),
  role: roleSchema,
  invitedBy: z.string().nullable(),
  expiresAt: z.string(),
  status: z.enum(INVITE_STATES),
  /** Whether an account with the invited address exists: the page then asks to sign in instead. */
  accountExists: z.boolean(),
});
export type InvitePreview = z.infer<typeof invitePreviewSchema>;

export const inviteBody = z.object({
  email: emailSchema,
  role: roleSchema,
  /** An address on one of the project's verified domains: the link is also emailed from it. */
  sendFrom: emailSchema.optional(),
});
export const changeRoleBody = z.object({ role: roleSchema });
/** A password only when no one is signed in: it creates the invited address's account. */
export const acceptInviteBody = z
  .object({
    password: z.string().min(MIN_PASSWORD_LENGTH, `At least ${MIN_PASSWORD_LENGTH} characters`).max(1000).optional(),
  })
  .nullish();
export const acceptedInviteSchema = z.object({ projectId: z.string().uuid(), role: roleSchema });

export const projectParams = z.object({ id: z.string().uuid() });
export const memberParams = z.object({ id: z.string().uuid(), userId: z.string().uuid() });
export const inviteParams = z.object({ id: z.string().uuid(), inviteId: z.string().uuid() });
export const tokenParams = z.object({ token: z.string().min(1).max(200) });
