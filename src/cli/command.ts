import type { ParseArgsConfig } from 'node:util';
import type { ApiClient } from './api-client.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command runs with: its arguments and flags, the API client, and where its output goes. */
export interface CommandContext {
  positionals: string[];
  values: Values;
  /** --json: one JSON document on stdout instead of text for a person. */
  json: boolean;
  /** The client of the instance; asking for it without a URL or key is a usage error. */
  api(): ApiClient;
  /** The result: text for a person, or `data` as JSON with --json. */
  print(text: string, data: unknown): void;
  /** A line of progress or a note on stderr, never mixed into the result. */
  note(text: string): void;
}

/** One `postbox` command: its name (with its group, as `contacts import`), its help, its flags. */
export interface Command {
  name: string;
  summary: string;
  /** The arguments after the name, as help shows them. */
  usage: string;
  /** More help: what it does, each flag, an example. */
  help: string;
  options: Options;
  /** Whether the command talks to an instance (and so takes --url and --key). */
  remote: boolean;
  run(ctx: CommandContext): Promise<void>;
}

/** A flag's string value, or undefined. */
export const stringFlag = (values: Values, name: string): string | undefined => {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
};
