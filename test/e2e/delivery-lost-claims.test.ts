import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { expect, it } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { eventually } from '../support/server.js';

// A claim whose commit went through but whose answer never came (the connection dropped at that
// moment) leaves emails held by a worker that lives and does not know it holds them: nobody else
// takes them over. Here such an email is made by hand, and a claim is made to fail by a lock held
// past the statement timeout, as a database that stops answering would.

const DOMAIN = 'lost.claims.test';
const mail = useMailServer({ DB_STATEMENT_TIMEOUT_SECONDS: '1' });

it('gives back, once a claim has failed, the due emails the worker holds without having them in hand', async () => {
  const project = await projectWithDomain(mail, 'lost-claims', DOMAIN);
  const { db, database } = mail.server.service.ctx;
  const id = randomUUID();
  const to = `lost-${id}@rcpt.lost.claims.test`;
  await run(
    db,
    sql`insert into emails (id, project_id, type, status, from_email, to_email, subject, html, message_id,
        next_attempt_at, attempts, locked_by, locked_until)
      values (${id}, ${project.id}, 'TRANSACTIONAL', 'queued', ${`alerts@${DOMAIN}`}, ${to}, 'Lost', '<p>Lost</p>',
        ${`<${id}@${DOMAIN}>`}, now() - interval '1 second', 1, ${String(database.processKey)}::bigint,
        now() - interval '1 second')`,
  );
  const arrived = () => mail.sink.messages.filter((m) => m.to.includes(to));

  // Held by a live worker, it is nobody's to send.
  await new Promise((r) => setTimeout(r, 1500));
  expect(arrived()).toHaveLength(0);

  // The worker's claims wait for the lock and time out.
  const locker = new pg.Client({ connectionString: mail.server.service.ctx.config.databaseUrl });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table emails in access exclusive mode');
    await new Promise((r) => setTimeout(r, 2500));
    await locker.query('commit');
  } finally {
    await locker.end();
  }

  await eventually(async () => (arrived().length > 0 ? true : undefined));
  await new Promise((r) => setTimeout(r, 500));
  expect(arrived()).toHaveLength(1);
  const row = await run<{ status: string; attempts: number }>(
    db,
    sql`select status, attempts from emails where id = ${id}`,
  );
  expect(row.rows[0]).toEqual({ status: 'sent', attempts: 1 });
});
