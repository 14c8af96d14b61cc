/**
 * The arithmetic of the overview's small SVG charts: a y scale with whole-number ticks (the
 * figures are counts), x positions of the days, the line through them, and which days get a
 * label so they never overlap.
 */

/** The step between ticks: 1, 2 or 5 times a power of ten, never below 1 (counts are whole). */
export function niceStep(rough: number): number {
  if (!(rough > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

/** Ticks from 0 to at least `max`, about `count` of them (0 included), evenly spaced by a nice step. */
export function yTicks(max: number, count = 4): number[] {
  const top = Math.max(0, max);
  const step = niceStep(top / count);
  const last = Math.max(step, Math.ceil(top / step) * step);
  const ticks: number[] = [];
  for (let t = 0; t <= last; t += step) ticks.push(t);
  return ticks;
}

export interface Frame {
  width: number;
  height: number;
  /** Room for the axis labels. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The y coordinate of a value, the top tick at the top of the plot area and 0 at its bottom. */
export function yOf(value: number, top: number, frame: Frame): number {
  const plot = frame.height - frame.top - frame.bottom;
  const ratio = top > 0 ? Math.min(Math.max(value / top, 0), 1) : 0;
  return frame.top + plot * (1 - ratio);
}

/** The x coordinate of the i-th of n days: spread edge to edge; a single day sits in the middle. */
export function xOf(i: number, n: number, frame: Frame): number {
  const plot = frame.width - frame.left - frame.right;
  if (n <= 1) return frame.left + plot / 2;
  return frame.left + (plot * i) / (n - 1);
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The SVG path of a series (`M x y L x y …`); empty for no values. */
export function linePath(values: readonly number[], top: number, frame: Frame): string {
  return values
    .map((v, i) => `${i === 0 ? 'M' : 'L'}${round(xOf(i, values.length, frame))} ${round(yOf(v, top, frame))}`)
    .join(' ');
}

/**
 * The indices of the days that get a label on the x axis: the first and the last always, and
 * evenly spaced ones between, at most `maxLabels` in all.
 */
export function labelIndices(n: number, maxLabels: number): number[] {
  if (n <= 0) return [];
  if (n === 1) return [0];
  const most = Math.max(2, Math.floor(maxLabels));
  if (n <= most) return Array.from({ length: n }, (_, i) => i);
  const step = Math.ceil((n - 1) / (most - 1));
  const indices: number[] = [];
  for (let i = 0; i < n - 1; i += step) indices.push(i);
  // The last day always has its label; one too close before it gives way.
  if (indices.length > 1 && n - 1 - indices[indices.length - 1]! < step / 2) indices.pop();
  indices.push(n - 1);
  return indices;
}
