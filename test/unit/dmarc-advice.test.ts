import { describe, expect, it } from 'vitest';
import { daysEnding, policyAdvice } from '../../src/domain/dmarc-advice.js';

const steadyDays = (last: string, count: number, passed = 99) =>
  daysEnding(last, count).map((day) => ({ day, messages: 100, passed }));

describe('when to move the DMARC policy on', () => {
  it('lists the days ending with a day, across a month end', () => {
    expect(daysEnding('2026-03-02', 3)).toEqual(['2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('advises quarantine after 14 days at 98 % or more, ending today or, before today’s reports, yesterday', () => {
    expect(policyAdvice('none', steadyDays('2026-11-27', 14), '2026-11-27').policy).toBe('quarantine');
    expect(policyAdvice('none', steadyDays('2026-11-26', 14), '2026-11-27').policy).toBe('quarantine');
    expect(policyAdvice('quarantine', steadyDays('2026-11-26', 14), '2026-11-27').policy).toBe('reject');
  });

  it('keeps the policy with fewer days, a day below 98 %, a day without reports, or at reject', () => {
    expect(policyAdvice('none', steadyDays('2026-11-26', 13), '2026-11-27')).toEqual({
      policy: null,
      text: expect.stringContaining('(13 of the last 14 so far)'),
    });
    const dip = steadyDays('2026-11-26', 14);
    dip[5] = { ...dip[5]!, passed: 97 };
    expect(policyAdvice('none', dip, '2026-11-27').policy).toBeNull();
    expect(policyAdvice('none', steadyDays('2026-11-25', 14), '2026-11-27').policy).toBeNull();
    expect(policyAdvice('reject', steadyDays('2026-11-26', 14), '2026-11-27').policy).toBeNull();
    expect(policyAdvice(null, [], '2026-11-27').text).toMatch(/^No reports/);
  });
});
