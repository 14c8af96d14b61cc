import { round } from './run.js';

/**
 * Follows gauges of a service's `GET /metrics` while a benchmark runs, the way an operator's
 * Prometheus would: one scrape a second, keeping each gauge's peak and the time each scrape took.
 */

/** A gauge to follow: its name and the labels that pick one series (`role` never needs naming). */
export interface WatchedGauge {
  name: string;
  labels?: Record<string, string>;
  /** Report its value at every scrape, not only its peak. */
  series?: boolean;
}

export interface WatchSummary {
  scrapes: number;
  failedScrapes: number;
  scrapeMs: { p50: number; max: number };
  /** Per watched gauge (by its key in the map given), the highest value seen; null if never seen. */
  peaks: Record<string, number | null>;
  /** Per watched gauge asked for, its value at each scrape (one a second). */
  series: Record<string, number[]>;
}

const SAMPLE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/;

/** The value of `gauge` in an exposition text, or undefined. */
export function gaugeValue(text: string, gauge: WatchedGauge): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(gauge.name)) continue;
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== gauge.name) continue;
    const labels = m[2] ?? '';
    if (Object.entries(gauge.labels ?? {}).every(([k, v]) => labels.includes(`${k}="${v}"`))) return Number(m[3]);
  }
  return undefined;
}

export class MetricsWatch<K extends string> {
  private readonly values = new Map<K, number[]>();
  private readonly durations: number[] = [];
  private failed = 0;
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(
    private readonly url: string,
    private readonly gauges: Record<K, WatchedGauge>,
    private readonly everyMs = 1000,
  ) {
    for (const key of Object.keys(gauges) as K[]) this.values.set(key, []);
  }

  start(): void {
    this.timer = setInterval(() => void this.scrape(), this.everyMs);
  }

  async stop(): Promise<WatchSummary> {
    clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
    const sorted = this.durations.slice().sort((a, b) => a - b);
    const peaks = {} as Record<string, number | null>;
    const series = {} as Record<string, number[]>;
    for (const [key, values] of this.values) {
      peaks[key] = values.length ? round(Math.max(...values), 2) : null;
      if (this.gauges[key].series) series[key] = values.map((v) => round(v, 1));
    }
    return {
      scrapes: this.durations.length,
      failedScrapes: this.failed,
      scrapeMs: { p50: round(sorted[Math.floor(sorted.length / 2)] ?? NaN, 1), max: round(sorted.at(-1) ?? NaN, 1) },
      peaks,
      series,
    };
  }

  private async scrape(): Promise<void> {
    // A scrape slower than the interval is not doubled up, as Prometheus would not.
    if (this.busy) return;
    this.busy = true;
    const started = performance.now();
    try {
      const res = await fetch(this.url, { signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (!res.ok) throw new Error(`status ${res.status}`);
      this.durations.push(performance.now() - started);
      for (const [key, gauge] of Object.entries(this.gauges) as [K, WatchedGauge][]) {
        const v = gaugeValue(text, gauge);
        if (v !== undefined) this.values.get(key)!.push(v);
      }
    } catch {
      this.failed++;
    } finally {
      this.busy = false;
    }
  }
}
