import { bulkSenderRules } from '../../domain/bulk-sender-rules.js';
import type { AppContext } from '../../platform/context.js';
import { projectDomain } from '../domains/service.js';
import { senderFigures } from '../emails/service.js';
import type { DomainHealth } from './schemas.js';

const WEEK_MS = 7 * 86_400_000;

/**
 * Whether a sender domain meets the bulk-sender rules of Gmail and Yahoo: its records as last
 * checked (every 5 minutes, or by GET /domains/{id}/verify) and its mail of the last 7 days.
 */
export async function domainHealth(ctx: AppContext, projectId: string, domainId: string): Promise<DomainHealth> {
  const domain = await projectDomain(ctx, projectId, domainId);
  const since = new Date(ctx.clock.now().getTime() - WEEK_MS);
  const figures = await senderFigures(ctx, projectId, domain.domain, since);
  const status = (purpose: string) => domain.records.find((r) => r.purpose === purpose)?.status;
  const items = bulkSenderRules({
    domain: domain.domain,
    dkim: status('dkim') ?? 'pending',
    spf: status('spf') ?? 'pending',
    returnPath: status('return-path') ?? null,
    dmarcPolicy: domain.records.find((r) => r.purpose === 'dmarc')?.dmarc?.policy ?? null,
    ...figures,
  });
  return {
    domainId: domain.id,
    domain: domain.domain,
    checkedAt: domain.checkedAt,
    since: since.toISOString(),
    met: items.every((i) => i.status !== 'fail'),
    items,
    figures: {
      ...figures,
      complaintRate: figures.sent > 0 ? figures.complained / figures.sent : null,
      hardBounceRate: figures.sent > 0 ? figures.hardBounced / figures.sent : null,
    },
  };
}
