import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { CampaignEngagement } from '../../../../src/api.js';

const STEP_SECONDS: Record<CampaignEngagement['interval'], number> = { minute: 60, hour: 3600, day: 86_400 };

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

/** Opens and clicks over time as two lines; loaded with the report only when there is something to draw. */
export default function EngagementChart({ engagement }: { engagement: CampaignEngagement }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const style = getComputedStyle(document.documentElement);
    const color = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
    const text = color('--text', '#222');
    const axis = {
      stroke: text,
      grid: { stroke: color('--border', '#ddd') },
      ticks: { stroke: color('--border', '#ddd') },
    };
    const chart = new uPlot(
      {
        width: el.clientWidth,
        height: 220,
        series: [
          {},
          { label: 'Opens', stroke: color('--accent', '#2563eb'), width: 2 },
          { label: 'Clicks', stroke: color('--ok', '#116329'), width: 2 },
        ],
        axes: [axis, axis],
        legend: { show: true },
      },
      chartColumns(engagement),
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth, height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [engagement]);
  return <div ref={box} className="engagement-chart" aria-hidden="true" />;
}
