import { fileURLToPath } from 'node:url';

/**
 * The files the service reads beside its code: the database migrations, the built dashboard and the
 * untrusted-content threads' entry. From source they are where the repository keeps them; in the
 * production build (`npm run build`) the code is bundled into dist/main.js and the build puts the
 * rest beside it, so that the build needs nothing from src/ or web/. This module's own URL says which: from
 * source it is this `.ts` file, in the build the bundle's.
 */
export interface ServiceFiles {
  /** Drizzle's migrations folder (SQL files and meta/_journal.json). */
  migrations: string;
  /** The dashboard's built files (`npm run build:web`), ending with a slash. */
  webApp: string;
  /** The module piscina loads in each untrusted-content thread, as a file URL. */
  untrustedWorker: string;
}

export function serviceFiles(moduleUrl: string): ServiceFiles {
  const at = (relative: string) => new URL(relative, moduleUrl);
  if (moduleUrl.endsWith('.ts')) {
    return {
      migrations: fileURLToPath(at('./db/migrations')),
      webApp: fileURLToPath(at('../../web/dist/')),
      untrustedWorker: at('./untrusted/worker.mjs').href,
    };
  }
  return {
    migrations: fileURLToPath(at('./migrations')),
    webApp: fileURLToPath(at('./web/')),
    untrustedWorker: at('./untrusted-worker.js').href,
  };
}

export const SERVICE_FILES = serviceFiles(import.meta.url);
