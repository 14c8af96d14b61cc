import { sql } from 'drizzle-orm';
import { openDatabase, run } from '../src/platform/db/client.js';
import { ensureMonthsAhead, monthStart } from '../src/platform/db/partitions.js';

/** The audience and the email of the campaign benchmarks: N contacts with the data a realistic template uses. */

/** Contact i: `c<i>@d<i % 50>.example.net`; the sink maps a recipient back to i. */
export const emailOf = (i: number) => `c${i}@d${i % 50}.example.net`;
export const RECIPIENT = /^c(\d+)@d\d+\.example\.net$/;

const CITIES = ['Paris', 'Lyon', 'Berlin', 'Madrid', 'Lisbon', 'Vienna', 'Oslo', 'Dublin'];
const PLANS = ['free', 'pro', 'team'];

export const SUBJECT = '{{ firstName ?? "Hello" }}, what is new this month on your {{ plan | capitalize }} plan';
export const BODY = `<!doctype html>
<html><head><meta charset="utf-8"><title>News from Bench</title></head>
<body style="font-family: Helvetica, Arial, sans-serif; color: #222; margin: 0; padding: 0">
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table width="600" cellpadding="16" cellspacing="0" style="border: 1px solid #eee">
<tr><td><h1 style="font-size: 22px">Hi {{ firstName ?? "there" }},</h1>
<p>Here is what changed at Bench this month, and what it means for your <strong>{{ plan }}</strong> plan.</p>
{% if plan == "free" %}<p>You have <strong>{{ credits }}</strong> free credits left. Upgrading to Pro gives you unlimited projects and
priority support: <a href="https://bench.example.com/upgrade?from={{ plan }}" style="color: #0a6">see the plans</a>.</p>
{% else %}<p>Thanks for being a {{ plan | capitalize }} customer. Your {{ credits }} credits renew on the first of the month, and your
last order <strong>{{ lastOrder }}</strong> is <a href="https://bench.example.com/orders/{{ lastOrder }}" style="color: #0a6">in your account</a>.</p>
{% endif %}
<table width="100%" cellpadding="6" cellspacing="0" style="border-collapse: collapse">
<tr style="background: #f6f6f6"><th align="left">New this month</th><th align="left"></th></tr>
<tr><td>Faster exports</td><td><a href="https://bench.example.com/blog/exports">Read more</a></td></tr>
<tr><td>Events near {{ city ?? "you" }}</td><td><a href="https://bench.example.com/events?city={{ city ?? "" | url_encode }}">See the dates</a></td></tr>
<tr><td>A new help centre</td><td><a href="https://bench.example.com/help">Visit it</a></td></tr>
</table>
<p><a href="https://bench.example.com/dashboard" style="background: #0a6; color: #fff; padding: 10px 16px; text-decoration: none">Open your dashboard</a></p>
<p style="color: #888; font-size: 12px">Bench · 1 Example Street · 75000 Paris · You receive this email because you have an
account on bench.example.com.</p>
</td></tr></table></td></tr></table>
</body></html>`;

/** A literal `array['a', …]` of plain words. */
const textArray = (values: string[]) => sql.raw(`array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`);

/**
 * N contacts in one set-wise statement, all subscribed: every fifth without a first name (so `??`
 * shows), plans and cities spread evenly. Emails, fields and contact ids as the API would write them.
 */
export async function insertContacts(
  connection: { databaseUrl?: string; dataDir: string },
  projectId: string,
  n: number,
): Promise<void> {
  const database = await openDatabase(connection);
  try {
    await run(
      database.db,
      sql`
      insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
      select ${projectId}::uuid, 'c' || g || '@d' || (g % 50) || '.example.net', true,
        jsonb_strip_nulls(jsonb_build_object(
          'firstName', case when g % 5 = 0 then null else 'Ada' || (g % 1000) end,
          'plan', (${textArray(PLANS)})[1 + g % ${PLANS.length}],
          'city', (${textArray(CITIES)})[1 + g % ${CITIES.length}],
          'credits', (g * 37) % 500,
          'lastOrder', 'B' || (100000 + g))),
        now() - make_interval(secs => ${n}::int - g), now()
      from generate_series(0, ${n - 1}) g`,
    );
    await run(
      database.db,
      sql`
      insert into contact_fields (project_id, key, type)
      values (${projectId}, 'firstName', 'string'), (${projectId}, 'plan', 'string'), (${projectId}, 'city', 'string'),
        (${projectId}, 'credits', 'number'), (${projectId}, 'lastOrder', 'string')
      on conflict do nothing`,
    );
    await run(database.db, sql`analyze contacts`);
  } finally {
    await database.close();
  }
}

/**
 * The month partitions of `table` for the `months` months before this one, empty, as a worker that
 * has run that long without a retention leaves them. Returns how many it made.
 */
export async function makePastMonths(
  connection: { databaseUrl?: string; dataDir: string },
  table: string,
  months: number,
): Promise<number> {
  const database = await openDatabase(connection);
  try {
    let made = 0;
    for (let i = months; i >= 1; i--)
      made += (await ensureMonthsAhead(database.db, table, monthStart(new Date(), -i), 0)).length;
    return made;
  } finally {
    await database.close();
  }
}
