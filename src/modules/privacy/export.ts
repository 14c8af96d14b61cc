import { Readable } from 'node:stream';
import type { AppContext } from '../../platform/context.js';
import * as audit from '../audit/service.js';
import { getContact } from '../contacts/service.js';
import { EXPORT_SECTIONS } from './export-sections.js';

/** Rows read per query: a page of a section, never the whole of a large history. */
const PAGE = 1_000;

/**
 * `GET /contacts/{id}/export`: everything held about a contact as one JSON document, written as it
 * is read, a page of each section at a time. The export is an audit entry (without the address).
 */
export async function exportContact(ctx: AppContext, projectId: string, contactId: string) {
  const contact = await getContact(ctx, projectId, contactId);
  await audit.record(ctx.db, {
    projectId,
    action: 'contact.exported',
    target: { type: 'contact', id: contactId },
    changes: { sections: EXPORT_SECTIONS.map((s) => s.name) },
  });
  const target = { projectId, contactId, email: contact.email };
  async function* document(): AsyncGenerator<string> {
    const head = { exportedAt: ctx.clock.now().toISOString(), projectId, contact };
    yield JSON.stringify(head).slice(0, -1);
    for (const section of EXPORT_SECTIONS) {
      yield `,${JSON.stringify(section.name)}:[`;
      let after = null;
      let first = true;
      for (;;) {
        const rows = await section.page(ctx.db, target, after, PAGE);
        if (rows.length > 0) {
          yield (first ? '' : ',') + rows.map((r) => JSON.stringify(r.row)).join(',');
          first = false;
          after = rows[rows.length - 1]!.key;
        }
        if (rows.length < PAGE) break;
      }
      yield ']';
    }
    yield '}\n';
  }
  return { contact, stream: Readable.from(document(), { objectMode: false }) };
}
