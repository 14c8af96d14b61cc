/**
 * A project member's role, weakest first: each role may do everything the one before it may.
 * What each may do is written in docs/decisions.md (## Accounts) and the README's role table.
 */
export const ROLES = ['member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const roleAtLeast = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed);

/** "the admin role or higher", "the owner role": what an error says is needed. */
export const neededRole = (needed: Role): string =>
  needed === 'owner' ? 'the owner role' : `the ${needed} role or higher`;
