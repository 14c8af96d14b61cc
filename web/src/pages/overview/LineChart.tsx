import { useId, useLayoutEffect, useRef, useState } from 'react';
import { formatDay, formatDayShort } from '../../format/dates.js';
import { type Frame, labelIndices, linePath, xOf, yOf, yTicks } from './chart-scale.js';

export type SeriesTone = 'accent' | 'alt' | 'warn' | 'danger';

export interface Series {
  label: string;
  tone: SeriesTone;
  values: readonly number[];
}

const HEIGHT = 180;
const countFormat = new Intl.NumberFormat(undefined, { notation: 'compact' });
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** The width the chart has, followed as the window changes. */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.floor(entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/**
 * A small line chart of daily counts, drawn as SVG: a title, a one-sentence summary for screen
 * readers, and the numbers themselves in a table below it. No chart library: the shapes are a
 * few paths, and the table is the accessible version of the same figures.
 */
export function LineChart({
  title,
  dates,
  series,
  empty,
}: {
  title: string;
  dates: readonly string[];
  series: readonly Series[];
  /** Said instead of a flat line when every value is 0. */
  empty: string;
}) {
  const titleId = useId();
  const descId = useId();
  const [ref, width] = useWidth();
  const totals = series.map((s) => sum(s.values));
  const nothing = totals.every((t) => t === 0);
  const summary = `${series.map((s, i) => `${s.label} ${totals[i]!.toLocaleString()}`).join(', ')} from ${
    dates[0] ? formatDay(dates[0]) : ''
  } to ${dates.length ? formatDay(dates[dates.length - 1]!) : ''}.`;

  return (
    <figure className="chart card" aria-labelledby={titleId}>
      <figcaption className="chart-head">
        <h3 id={titleId}>{title}</h3>
        <ul className="chart-legend">
          {series.map((s, i) => (
            <li key={s.label}>
              <svg className={`legend-mark tone-${s.tone}`} width="22" height="10" aria-hidden="true">
                <line x1="1" y1="5" x2="21" y2="5" className={i === 1 ? 'dashed' : undefined} />
              </svg>
              {s.label} <strong>{totals[i]!.toLocaleString()}</strong>
            </li>
          ))}
        </ul>
      </figcaption>
      <div ref={ref} className="chart-plot">
        {nothing ? (
          <p className="chart-empty muted">{empty}</p>
        ) : (
          width > 0 && <Plot title={title} width={width} dates={dates} series={series} descId={descId} />
        )}
        <p id={descId} hidden>
          {summary}
        </p>
      </div>
      <details className="chart-table">
        <summary>Numbers per day</summary>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region (a year of days) must be reachable by keyboard */}
        <section className="table-scroll" aria-label={`${title}, numbers per day, scrollable`} tabIndex={0}>
          <table className="table">
            <caption className="visually-hidden">{`${title} per day`}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th key={s.label} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {dates.map((date, d) => (
                <tr key={date}>
                  <th scope="row">
                    <time dateTime={date}>{formatDay(date)}</time>
                  </th>
                  {series.map((s) => (
                    <td key={s.label}>{(s.values[d] ?? 0).toLocaleString()}</td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                {series.map((s, i) => (
                  <td key={s.label}>{totals[i]!.toLocaleString()}</td>
                ))}
              </tr>
            </tfoot>
          </table>
        </section>
      </details>
    </figure>
  );
}

function Plot({
  title,
  width,
  dates,
  series,
  descId,
}: {
  title: string;
  width: number;
  dates: readonly string[];
  series: readonly Series[];
  descId: string;
}) {
  const frame: Frame = { width, height: HEIGHT, left: 40, right: 12, top: 10, bottom: 24 };
  const ticks = yTicks(Math.max(...series.flatMap((s) => s.values)));
  const top = ticks[ticks.length - 1]!;
  const n = dates.length;
  const labels = labelIndices(n, (width - frame.left - frame.right) / 64);
  const dots = n <= 31 && (width - frame.left) / n >= 9;
  return (
    <svg
      className="chart-svg"
      width={width}
      height={HEIGHT}
      viewBox={`0 0 ${width} ${HEIGHT}`}
      role="img"
      aria-describedby={descId}
    >
      <title>{title}</title>
      <g className="chart-axes">
        {ticks.map((t) => (
          <g key={t}>
            <line x1={frame.left} x2={width - frame.right} y1={yOf(t, top, frame)} y2={yOf(t, top, frame)} />
            <text x={frame.left - 6} y={yOf(t, top, frame)} dy="0.32em" textAnchor="end">
              {countFormat.format(t)}
            </text>
          </g>
        ))}
        {labels.map((i) => (
          <text
            key={i}
            x={xOf(i, n, frame)}
            y={HEIGHT - 6}
            textAnchor={n > 1 && i === 0 ? 'start' : n > 1 && i === n - 1 ? 'end' : 'middle'}
          >
            {formatDayShort(dates[i]!)}
          </text>
        ))}
      </g>
      {series.map((s, k) => (
        <g key={s.label} className={`chart-series tone-${s.tone}`}>
          <path d={linePath(s.values, top, frame)} className={k === 1 ? 'dashed' : undefined} />
          {/* The days with something to count, marked where they are few enough to tell apart. */}
          {dots &&
            s.values.map((v, i) =>
              v > 0 ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: one dot per day, in order
                <circle key={i} cx={xOf(i, n, frame)} cy={yOf(v, top, frame)} r={k === 1 ? 2.5 : 3} />
              ) : null,
            )}
        </g>
      ))}
    </svg>
  );
}
