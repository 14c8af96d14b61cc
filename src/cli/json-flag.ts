import fs from 'node:fs';
import { CliError, EXIT } from './exit-codes.js';

/** A flag holding a JSON object (`--data '{"plan":"pro"}'`), or `@file.json` to read it from a file. */
export function jsonObjectFlag(name: string, raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  const text = raw.startsWith('@') ? readFlagFile(name, raw.slice(1)) : raw;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(EXIT.usage, `--${name} must be a JSON object, such as '{"plan":"pro"}'`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(EXIT.usage, `--${name} must be a JSON object, such as '{"plan":"pro"}'`);
  }
  return value as Record<string, unknown>;
}

/** A file a flag names; a missing one is a usage error naming the flag. */
export function readFlagFile(name: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(EXIT.usage, `--${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err})`);
  }
}
