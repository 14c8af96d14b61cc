/** A progress line on stderr: redrawn in place at a terminal, one line per step otherwise (logs, CI). */
export class Progress {
  private readonly started = Date.now();
  private lastLine = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly from = 0,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  /** `done` of `total` (bytes), with `rows` so far for the reader. */
  update(done: number, rows: number): void {
    const fraction = this.total > 0 ? Math.min(done / this.total, 1) : 1;
    const elapsed = (Date.now() - this.started) / 1000;
    const rate = elapsed > 0 ? (done - this.from) / elapsed : 0;
    const eta = rate > 0 ? (this.total - done) / rate : Number.NaN;
    const width = 24;
    const filled = Math.round(fraction * width);
    const line =
      `${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)} %` +
      `  ${rows.toLocaleString('en-US')} rows  ETA ${clock(eta)}`;
    if (this.stream.isTTY) {
      this.stream.write(`\r${line}`);
    } else if (Date.now() - this.lastLine > 1000 || fraction === 1) {
      this.stream.write(`${line}\n`);
      this.lastLine = Date.now();
    }
  }

  end(): void {
    if (this.stream.isTTY) this.stream.write('\n');
  }
}

function clock(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--:--';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}
