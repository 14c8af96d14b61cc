import type { Role } from '../../../../src/api.js';

/**
 * What the page offers each role, mirroring the API's rules (docs/decisions.md, ## Accounts); the
 * API refuses the rest whatever the page shows.
 */
export const ROLE_LABELS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** Admins manage members and admins; owners manage everyone. */
export const canManage = (mine: Role, theirs: Role): boolean =>
  mine === 'owner' || (mine === 'admin' && theirs !== 'owner');

/** The roles one may give in an invitation or a change: only an owner makes owners. */
export const rolesGrantable = (mine: Role): Role[] =>
  mine === 'owner' ? ['member', 'admin', 'owner'] : mine === 'admin' ? ['member', 'admin'] : [];
