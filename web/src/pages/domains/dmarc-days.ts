import type { DmarcSummary } from '../../../../src/api.js';

const DAY_MS = 86_400_000;

/** Every day of the summary's range, oldest first, days without reports as zeros: a chart's x axis. */
export function daysOf(s: Pick<DmarcSummary, 'from' | 'to' | 'days'>): DmarcSummary['days'] {
  const byDay = new Map(s.days.map((d) => [d.day, d]));
  const out: DmarcSummary['days'] = [];
  for (let t = Date.parse(`${s.from}T00:00:00Z`); t <= Date.parse(`${s.to}T00:00:00Z`); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, messages: 0, passed: 0 });
  }
  return out;
}
