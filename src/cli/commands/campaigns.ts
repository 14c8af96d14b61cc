import { createInterface } from 'node:readline/promises';
import type { Campaign, CampaignProgress, CampaignStats } from '../../api.js';
import { type Command, stringFlag } from '../command.js';
import { CliError, EXIT } from '../exit-codes.js';
import { table } from '../table.js';

interface CampaignPage {
  data: Campaign[];
  total: number;
  page: number;
  totalPages: number;
}

export const campaignsList: Command = {
  name: 'campaigns list',
  summary: 'List campaigns with their status and figures',
  usage: '[--status STATUS] [--search TEXT] [--page N]',
  help: '  --status STATUS   DRAFT, SCHEDULED, SENDING, PAUSED, SENT or CANCELLED\n  --search TEXT     in the name\n  --page N          the page of 50 (1 by default)',
  options: { status: { type: 'string' }, search: { type: 'string' }, page: { type: 'string' } },
  remote: true,
  async run(ctx) {
    const query = new URLSearchParams({ pageSize: '50', page: stringFlag(ctx.values, 'page') ?? '1' });
    for (const name of ['status', 'search']) {
      const value = stringFlag(ctx.values, name);
      if (value) query.set(name, value);
    }
    const page = await ctx.api().get<CampaignPage>(`/campaigns?${query}`);
    const rows = page.data.map((c) => [c.id, c.status, c.name, c.totalRecipients, c.sentCount, c.openedCount]);
    ctx.print(
      `${table(['ID', 'STATUS', 'NAME', 'RECIPIENTS', 'SENT', 'OPENED'], rows)}\n\npage ${page.page} of ${Math.max(page.totalPages, 1)}, ${page.total} campaigns`,
      page,
    );
  },
};

async function confirmed(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export const campaignsSend: Command = {
  name: 'campaigns send',
  summary: 'Send a draft campaign now, or schedule it',
  usage: 'ID [--at DATE] [--yes]',
  help:
    '  --at DATE   schedule it (ISO 8601) instead of sending now\n' +
    '  --yes       do not ask; required when stdin is not a terminal',
  options: { at: { type: 'string' }, yes: { type: 'boolean' } },
  remote: true,
  async run(ctx) {
    const [id] = ctx.positionals;
    if (!id) throw new CliError(EXIT.usage, 'campaigns send needs the campaign ID');
    const api = ctx.api();
    const campaign = await api.get<Campaign>(`/campaigns/${encodeURIComponent(id)}`);
    const at = stringFlag(ctx.values, 'at');
    if (!ctx.values.yes) {
      if (!process.stdin.isTTY) throw new CliError(EXIT.usage, 'Add --yes to send without a question at a terminal');
      const when = at ? `at ${at}` : 'now';
      if (!(await confirmed(`Send "${campaign.name}" (${campaign.audienceType} audience) ${when}? [y/N] `))) {
        throw new CliError(EXIT.failed, 'Not sent');
      }
    }
    const answer = await api.post<{ data: Campaign; message: string }>(
      `/campaigns/${encodeURIComponent(id)}/send`,
      at ? { scheduledFor: at } : {},
    );
    ctx.print(`${answer.message}: ${answer.data.name} is ${answer.data.status}`, answer.data);
  },
};

export const campaignsReport: Command = {
  name: 'campaigns report',
  summary: 'A campaign’s figures and the progress of its sending',
  usage: 'ID',
  help: 'Prints recipients, sent, delivered, opened, clicked, bounced, complained and unsubscribed, with the rates.',
  options: {},
  remote: true,
  async run(ctx) {
    const [id] = ctx.positionals;
    if (!id) throw new CliError(EXIT.usage, 'campaigns report needs the campaign ID');
    const api = ctx.api();
    const path = `/campaigns/${encodeURIComponent(id)}`;
    const [stats, progress] = await Promise.all([
      api.get<CampaignStats>(`${path}/stats`),
      api.get<CampaignProgress>(`${path}/progress`),
    ]);
    const percent = (x: number) => `${(x * 100).toFixed(1)} %`;
    const lines = [
      `status        ${stats.status}`,
      `recipients    ${stats.totalRecipients} (${progress.done} done, ${progress.pending} pending)`,
      `sent          ${stats.sent}`,
      `delivered     ${stats.delivered}`,
      `opened        ${stats.opened} (${percent(stats.openRate)})`,
      `clicked       ${stats.clicked} (${percent(stats.clickRate)})`,
      `bounced       ${stats.bounced} (${percent(stats.bounceRate)})`,
      `complained    ${stats.complained}`,
      `unsubscribed  ${stats.unsubscribed}`,
    ];
    ctx.print(lines.join('\n'), { stats, progress });
  },
};
