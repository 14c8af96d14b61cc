import { createHmac } from 'node:crypto';

/**
 * The only trace an erase leaves of an address (docs/decisions.md, "Export, erase and retention"):
 * HMAC-SHA256 of the project and the address under the instance's erasure salt. It answers one
 * question, "was this address erased from this project?", when the address is presented again by an
 * import, /v1/track, the API or a form; it cannot be turned back into the address, nor matched across
 * projects or instances (each has its own key). Addresses are compared as the API stores them:
 * trimmed and lower-cased.
 */
export function erasedAddressHash(salt: Buffer, projectId: string, email: string): string {
  return createHmac('sha256', salt).update(`${projectId}\n${email.trim().toLowerCase()}`).digest('hex');
}

/** What a refused write says, to an API caller, an import's report or a form's visitor. */
export const ERASED_MESSAGE =
  'This address was erased from the project at its owner’s request; it is not stored again.';
