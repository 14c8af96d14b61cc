import { afterAll, describe, expect, it } from 'vitest';
import { verifiedDomain } from '../support/domains.js';
import { useChildPeers } from '../support/mail-server.js';
import { messageIdOf } from '../support/sending.js';
import { type ChildServer, type Client, client, eventually, printedKeys, spawnService } from '../support/server.js';
import { numberedTemplate, trackEach } from '../support/workflows.js';

const CONTACTS = 800;
const DOMAIN = 'crash.workflow.test';

const peers = useChildPeers();
let server: ChildServer | undefined;

afterAll(() => server?.kill());

const env = () => peers.env({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000' });

const random = (min: number, max: number) => min + Math.random() * (max - min);

async function buildWorkflow(api: Client, templateId: string): Promise<string> {
  const created = await api.post('/workflows', { name: 'Crash', triggerConfig: { event: 'joined' } });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const ids: string[] = [];
  for (const step of [
    { type: 'SEND_EMAIL', config: { templateId } },
    { type: 'DELAY', config: { amount: 1, unit: 'seconds' } },
    { type: 'UPDATE_CONTACT', config: { data: { onboarded: true } } },
    { type: 'SEND_EMAIL', config: { templateId } },
  ]) {
    const res = await api.post(`/workflows/${id}/steps`, step);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.id);
  }
  for (let i = 1; i < ids.length; i++) {
    expect((await api.post(`/workflows/${id}/transitions`, { fromStepId: ids[i - 1], toStepId: ids[i] })).status).toBe(
      201,
    );
  }
  expect((await api.patch(`/workflows/${id}`, { enabled: true })).status).toBe(200);
  return id;
}

async function countExecutions(api: Client, workflowId: string, status?: string): Promise<number> {
  const res = await api.get(`/workflows/${workflowId}/executions?limit=1${status ? `&status=${status}` : ''}`);
  return res.body.total;
}

describe('workflow executions whose worker is killed during a burst', () => {
  it(`finish every one of ${CONTACTS} executions exactly once`, async () => {
    server = await spawnService(env());
    const { secretKey: sk, publicKey: pk } = printedKeys(server.output());
    let api = client(server.url, sk);
    await verifiedDomain(api, peers.dns, DOMAIN);
    const workflowId = await buildWorkflow(api, await numberedTemplate(api, `hi@${DOMAIN}`));

    // The burst: every contact joins, from 20 concurrent connections.
    const emails = Array.from({ length: CONTACTS }, (_, i) => `w${i}@rcpt.crash.test`);
    await trackEach(api, pk, emails, 'joined', 20);

    // Kills at random moments while executions run, early and later. What a killed worker had
    // claimed is taken over by the next one as soon as the database has seen the process go.
    for (const [lo, hi] of [
      [0.05, 0.35],
      [0.4, 0.7],
    ] as const) {
      const threshold = Math.floor(2 * CONTACTS * random(lo, hi));
      await eventually(async () => (peers.sink.messages.length >= threshold ? true : undefined), 300_000, 20);
      await server.kill('SIGKILL');
      server = await spawnService(env());
      api = client(server.url, sk);
    }

    await eventually(
      async () => ((await countExecutions(api, workflowId, 'completed')) === CONTACTS ? true : undefined),
      600_000,
      500,
    );
    expect(await countExecutions(api, workflowId)).toBe(CONTACTS);

    // Exactly once: each execution took each of its four steps once, and each contact got two emails.
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; cursor: string | null } } = await api.get(
        `/workflows/${workflowId}/executions?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      const details = await Promise.all(
        page.body.data.map((e) => api.get(`/workflows/${workflowId}/executions/${e.id}`)),
      );
      for (const detail of details) {
        expect(detail.body.steps.map((s: { type: string }) => s.type)).toEqual([
          'SEND_EMAIL',
          'DELAY',
          'UPDATE_CONTACT',
          'SEND_EMAIL',
        ]);
      }
      cursor = page.body.cursor;
    } while (cursor);

    const delivered = () => {
      const byRecipient = new Map<string, Set<string>>();
      for (const m of peers.sink.messages) {
        for (const to of m.to) byRecipient.set(to, (byRecipient.get(to) ?? new Set()).add(messageIdOf(m.raw)!));
      }
      return byRecipient;
    };
    await eventually(
      async () => (emails.every((e) => (delivered().get(e)?.size ?? 0) >= 2) ? true : undefined),
      120_000,
      500,
    );
    const byRecipient = delivered();
    expect(emails.filter((e) => byRecipient.get(e)!.size !== 2)).toEqual([]);
  }, 900_000);
});
