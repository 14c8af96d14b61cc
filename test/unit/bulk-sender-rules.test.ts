import { describe, expect, it } from 'vitest';
import { bulkSenderRules, type SenderFacts } from '../../src/domain/bulk-sender-rules.js';

const facts: SenderFacts = {
  domain: 'x.test',
  dkim: 'verified',
  spf: 'verified',
  returnPath: null,
  dmarcPolicy: 'none',
  sent: 0,
  complained: 0,
  hardBounced: 0,
};
const item = (f: Partial<SenderFacts>, key: string) => bulkSenderRules({ ...facts, ...f }).find((i) => i.key === key)!;

describe('the bulk-sender checklist', () => {
  it('passes SPF without a return path, saying alignment comes from DKIM', () => {
    expect(item({}, 'spf')).toMatchObject({ status: 'pass', action: null });
    expect(item({}, 'spf').detail).toContain('alignment comes from DKIM');
  });

  it('warns when the return path is offered but not published', () => {
    expect(item({ returnPath: 'pending' }, 'spf')).toMatchObject({
      status: 'warn',
      action: 'Publish the return-path MX record for bounces.x.test.',
    });
  });

  it('puts the complaint limits at 0.1 % and 0.3 %', () => {
    expect(item({ sent: 10_000, complained: 9 }, 'complaint-rate').status).toBe('pass');
    expect(item({ sent: 10_000, complained: 10 }, 'complaint-rate').status).toBe('warn');
    expect(item({ sent: 10_000, complained: 29 }, 'complaint-rate').status).toBe('warn');
    expect(item({ sent: 10_000, complained: 30 }, 'complaint-rate').status).toBe('fail');
  });

  it('says when nothing was sent', () => {
    expect(item({}, 'hard-bounce-rate').detail).toBe('Nothing was sent from this domain in the last 7 days.');
  });
});
