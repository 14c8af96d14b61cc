import type { Branch, StepType } from '../../src/api.js';
import { type Client, expectBody } from './server.js';

/** A step to add to a workflow: its type and config (and a name, where the test gives one). */
export interface StepSpec {
  type: StepType;
  config?: Record<string, unknown>;
  name?: string;
}

/** A transition between two steps named by their keys, with the branch it leaves by. */
export type Edge = [from: string, to: string, branch?: Branch];

// Builders of steps whose configs the tests never vary beyond these arguments.
export const sendEmail = (templateId: string): StepSpec => ({ type: 'SEND_EMAIL', config: { templateId } });
export const condition = (...filters: Record<string, unknown>[]): StepSpec => ({
  type: 'CONDITION',
  config: { condition: { logic: 'AND', groups: [{ filters }] } },
});
export const updateContact = (config: Record<string, unknown>): StepSpec => ({ type: 'UPDATE_CONTACT', config });
export const exit = (): StepSpec => ({ type: 'EXIT', config: {} });

/** A transactional template from `from` whose subject and body carry the event's `n`; returns its id. */
export async function numberedTemplate(api: Client, from: string): Promise<string> {
  const body = { name: 'Numbered', subject: 'Hello {{ n }}', body: '<p>{{ n }}</p>', from, type: 'TRANSACTIONAL' };
  return (await expectBody(api.post('/templates', body), 201)).id;
}

/** Tracks `event` for every address, with its index as `data.n`, over `connections` concurrent requests. */
export async function trackEach(
  api: Client,
  publicKey: string,
  emails: string[],
  event: string,
  connections: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < emails.length) {
        const n = next++;
        await expectBody(api.post('/v1/track', { email: emails[n], event, data: { n } }, publicKey));
      }
    }),
  );
}
