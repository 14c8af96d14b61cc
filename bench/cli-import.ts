/**
 * `postbox contacts import` of a large CSV (1,000,000 rows) against a service on the PostgreSQL
 * server, as a child process: rows per second end to end and the CLI's peak memory (RSS, by
 * /usr/bin/time). Beside it, the dashboard's way: one upload of the largest file the API takes
 * (a 4 MB part of the same rows, into another project) to `POST /contacts/import`, timed from the
 * upload to the job's end. The goal: the CLI at least 0.9 times the dashboard's rate, under 150 MB.
 *
 *   npx tsx bench/cli-import.ts          # prints one JSON line
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_ROWS (1000000).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_ROOT, createBenchProject, PG_SERVER_URL, prepareService, scratchDir, startServiceChild } from './lib.js';
import { type Cleanup, log, machineInfo, reportVerified, round, runBench } from './run.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DASHBOARD_BYTES = 4 * 1024 * 1024;

function writeCsv(file: string, rows: number, prefix: string): void {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, 'email,subscribed,plan,city,score\n');
  const cities = ['London', 'Paris', 'Berlin', 'Lisbon', 'Oslo'];
  let batch: string[] = [];
  for (let i = 0; i < rows; i++) {
    batch.push(
      `${prefix}${i}@bench.test,${i % 10 ? 'true' : 'false'},${i % 3 ? 'pro' : 'free'},${cities[i % 5]},${i % 100}`,
    );
    if (batch.length === 10_000) {
      fs.writeSync(fd, `${batch.join('\n')}\n`);
      batch = [];
    }
  }
  if (batch.length) fs.writeSync(fd, `${batch.join('\n')}\n`);
  fs.closeSync(fd);
}

async function dashboardImport(url: string, key: string, file: string): Promise<{ rows: number; seconds: number }> {
  const text = fs.readFileSync(file, 'utf8');
  const cut = text.lastIndexOf('\n', DASHBOARD_BYTES) + 1;
  const part = text.slice(0, cut);
  const rows = part.split('\n').length - 2;
  const form = new FormData();
  form.set('file', new Blob([part], { type: 'text/csv' }), 'contacts.csv');
  const started = performance.now();
  const res = await fetch(`${url}/contacts/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const { jobId } = (await res.json()) as { jobId: string };
  for (;;) {
    const job = (await (
      await fetch(`${url}/contacts/import/${jobId}`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as {
      status: string;
    };
    if (job.status === 'completed' || job.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return { rows, seconds: (performance.now() - started) / 1000 };
}

function cliImport(
  url: string,
  key: string,
  file: string,
): Promise<{ seconds: number; maxRssKb: number; summary: any }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      '/usr/bin/time',
      ['-f', 'maxrss=%M', process.execPath, 'bin/postbox.mjs', 'contacts', 'import', file, '--json'],
      {
        cwd: BENCH_ROOT,
        env: { PATH: process.env.PATH, POSTBOX_URL: url, POSTBOX_KEY: key },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      err += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`postbox exited with ${code}: ${err.slice(-2000)}`));
      resolve({ seconds, maxRssKb: Number(/maxrss=(\d+)/.exec(err)?.[1]), summary: JSON.parse(out) });
    });
  });
}

runBench(async (cleanup: Cleanup) => {
  const setup = await prepareService(cleanup, 'cli_import', PG_SERVER_URL);
  const service = await startServiceChild(setup.env, setup.port, 'all');
  cleanup.add(() => service.stop());
  const dashboardProject = await createBenchProject(setup.env, 'dashboard');
  const cliProject = await createBenchProject(setup.env, 'cli');
  const scratch = scratchDir('cli-import-csv');
  cleanup.add(() => scratch.remove());
  const file = path.join(scratch.dir, 'contacts.csv');
  writeCsv(file, ROWS, 'user');
  log(`wrote ${ROWS} rows (${round(fs.statSync(file).size / 2 ** 20)} MB)`);

  const dashboard = await dashboardImport(service.url, dashboardProject.secretKey, file);
  log(`dashboard upload: ${dashboard.rows} rows in ${round(dashboard.seconds)} s`);
  const cli = await cliImport(service.url, cliProject.secretKey, file);
  const cliRate = ROWS / cli.seconds;
  const dashboardRate = dashboard.rows / dashboard.seconds;
  const problems: string[] = [];
  if (cli.summary.rows !== ROWS || cli.summary.failed !== 0) problems.push(`summary ${JSON.stringify(cli.summary)}`);
  return reportVerified(
    {
      bench: 'cli-import',
      rows: ROWS,
      megabytes: round(fs.statSync(file).size / 2 ** 20),
      cliSeconds: round(cli.seconds),
      cliRowsPerSecond: Math.round(cliRate),
      cliMaxRssMb: round(cli.maxRssKb / 1024),
      dashboardRows: dashboard.rows,
      dashboardSeconds: round(dashboard.seconds, 2),
      dashboardRowsPerSecond: Math.round(dashboardRate),
      ratio: round(cliRate / dashboardRate, 2),
      machine: machineInfo(),
    },
    problems,
  );
});
