import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUuid } from './formats.js';

export interface SubscriberRef {
  projectId: string;
  contactId: string;
  /** The email the link came in, when there was one. */
  emailId?: string;
  /** The topic of that email: its unsubscribe link leaves only this topic. */
  topicId?: string;
}

/**
 * Signs what the service puts in links (tracking, unsubscribe, manage) so a link can be neither
 * forged nor pointed somewhere else. Signatures are 128-bit HMAC-SHA256 over the purpose and the
 * values; links never expire, since an unsubscribe link must keep working.
 */
export class LinkSigner {
  constructor(private readonly key: Buffer) {}

  sign(purpose: string, ...values: string[]): string {
    return createHmac('sha256', this.key)
      .update([purpose, ...values].join('\n'))
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  }

  verify(signature: string, purpose: string, ...values: string[]): boolean {
    const expected = Buffer.from(this.sign(purpose, ...values));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** A token for the subscriber pages: the contact it is about and its signature. */
  subscriberToken(ref: SubscriberRef): string {
    // A topic makes a fifth part, signed with the rest: a link cannot be moved to another topic or to all mail.
    const body = [ref.projectId, ref.contactId, ref.emailId ?? '', ...(ref.topicId ? [ref.topicId] : [])].join('.');
    return `${body}.${this.sign('subscriber', body)}`;
  }

  readSubscriberToken(token: string): SubscriberRef | null {
    const parts = token.split('.');
    if (parts.length !== 4 && parts.length !== 5) return null;
    const signature = parts[parts.length - 1]!;
    const [projectId, contactId, emailId, topicId] = parts.slice(0, -1) as [string, string, string, string?];
    if (![projectId, contactId].every(isUuid) || (emailId && !isUuid(emailId))) return null;
    if (topicId !== undefined && !isUuid(topicId)) return null;
    if (!this.verify(signature, 'subscriber', parts.slice(0, -1).join('.'))) return null;
    return { projectId, contactId, ...(emailId ? { emailId } : {}), ...(topicId ? { topicId } : {}) };
  }
}

/** The links the service offers to every template as `unsubscribeUrl`, `subscribeUrl` and `manageUrl`. */
export function subscriberUrls(publicUrl: string, signer: LinkSigner, ref: SubscriberRef) {
  const token = signer.subscriberToken(ref);
  return {
    unsubscribeUrl: `${publicUrl}/unsubscribe/${token}`,
    subscribeUrl: `${publicUrl}/subscribe/${token}`,
    manageUrl: `${publicUrl}/manage/${token}`,
  };
}

export function openPixelUrl(publicUrl: string, signer: LinkSigner, emailId: string): string {
  return `${publicUrl}/t/open/${emailId}/${signer.sign('open', emailId)}`;
}

export function clickUrl(publicUrl: string, signer: LinkSigner, emailId: string, target: string): string {
  return `${publicUrl}/t/click/${emailId}/${signer.sign('click', emailId, target)}?url=${encodeURIComponent(target)}`;
}
