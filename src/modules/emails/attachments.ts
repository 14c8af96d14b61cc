import type { Executor } from '../../platform/db/client.js';
import * as repo from './delivery-repo.js';
import type { StoredAttachment } from './schemas.js';

/** Sets kept after their last read: the emails of one request are delivered close together. */
const KEEP_MS = 30_000;
/** At most this many sets in memory (each up to the 10 MB attachment limit, 13 MB as base64). */
const MAX_SETS = 4;

/**
 * The attachments of emails being delivered. The emails of one `/v1/send` request share one
 * attachment set (stored once), and they are delivered close together: the set is read from the
 * database once and shared by all of them while it is in use, instead of one copy per recipient.
 */
export class AttachmentCache {
  private readonly sets = new Map<string, { content: Promise<StoredAttachment[]>; until: number }>();

  constructor(private readonly ex: Executor) {}

  async of(emailId: string): Promise<StoredAttachment[]> {
    const ref = await repo.attachmentsRef(this.ex, emailId);
    if (!ref) return [];
    if ('own' in ref) return ref.own;
    const now = Date.now();
    for (const [id, set] of this.sets) if (set.until <= now) this.sets.delete(id);
    let set = this.sets.get(ref.setId);
    if (!set) {
      const content = repo.attachmentSet(this.ex, ref.setId);
      set = { content, until: 0 };
      if (this.sets.size >= MAX_SETS) this.sets.delete(this.sets.keys().next().value!);
      this.sets.set(ref.setId, set);
      // A failed read is not kept: the next email reads again.
      content.catch(() => this.sets.get(ref.setId) === set && this.sets.delete(ref.setId));
    }
    set.until = now + KEEP_MS;
    return set.content;
  }
}
