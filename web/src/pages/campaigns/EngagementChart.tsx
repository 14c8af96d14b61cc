import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { CampaignEngagement } from '../../../../src/api.js';
import { chartColumns, STEP_SECONDS } from './chart-columns.js';

const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000];

/** Whether the page is dark now (the dashboard follows the system), kept up to date. */
function useDarkScheme(): boolean {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const onChange = () => setDark(list.matches);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, []);
  return dark;
}

/** Opens and clicks over time as two lines; loaded with the report only when there is something to draw. */
export default function EngagementChart({ engagement }: { engagement: CampaignEngagement }) {
  const box = useRef<HTMLDivElement>(null);
  // Canvas colours are read from the theme when drawn: a change of scheme draws again.
  const dark = useDarkScheme();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const style = getComputedStyle(document.documentElement);
    const color = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
    const line = color('--border', dark ? '#333' : '#ddd');
    const axis = {
      stroke: color('--text-muted', dark ? '#aaa' : '#555'),
      grid: { stroke: line, width: 1 },
      ticks: { stroke: line },
    };
    const step = STEP_SECONDS[engagement.interval];
    const columns = chartColumns(engagement);
    const first = columns[0][0] ?? 0;
    const last = columns[0][columns[0].length - 1] ?? 0;
    const chart = new uPlot(
      {
        width: el.clientWidth,
        height: 220,
        scales: {
          // One point alone still gets a span of time around it.
          x: { time: true, range: first === last ? [first - 5 * step, last + 5 * step] : [first, last] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        series: [
          {},
          { label: 'Opens', stroke: color('--accent', '#2563eb'), width: 2, points: { size: 6 } },
          { label: 'Clicks', stroke: color('--ok', '#116329'), width: 2, points: { size: 6 } },
        ],
        axes: [axis, { ...axis, incrs: COUNT_STEPS }],
        legend: { show: true },
      },
      columns,
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth, height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [engagement, dark]);
  return <div ref={box} className="engagement-chart" aria-hidden="true" />;
}
