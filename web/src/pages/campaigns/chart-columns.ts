import type { CampaignEngagement } from '../../../../src/api.js';

export const STEP_SECONDS: Record<CampaignEngagement['interval'], number> = { minute: 60, hour: 3600, day: 86_400 };

/** The series with the empty intervals between its points filled with zeros, as uPlot's columns. */
export function chartColumns(e: CampaignEngagement): [number[], number[], number[]] {
  const step = STEP_SECONDS[e.interval];
  const at: number[] = [];
  const opens: number[] = [];
  const clicks: number[] = [];
  const byTime = new Map(e.data.map((p) => [Date.parse(p.at) / 1000, p]));
  const times = [...byTime.keys()];
  if (times.length === 0) return [at, opens, clicks];
  // Filled at most 2,000 steps, so a long campaign at a fine interval cannot hang the page.
  const first = Math.min(...times);
  const last = Math.max(...times);
  const stride = Math.max(step, Math.ceil((last - first) / step / 2000) * step);
  for (let t = first; t <= last; t += stride) {
    at.push(t);
    opens.push(byTime.get(t)?.opens ?? 0);
    clicks.push(byTime.get(t)?.clicks ?? 0);
  }
  return [at, opens, clicks];
}
