import type { z } from 'zod';
import type { Scope } from '../../domain/api-keys.js';
import type { AppContext } from '../../platform/context.js';
import type { Author } from '../templates/versions.js';
import type { Confirmations } from './confirmation.js';

/** What every tool call runs with: the service context and the project of the caller's key. */
export interface ToolCall {
  ctx: AppContext;
  projectId: string;
  /** Who calls: recorded where the project keeps a history (template versions). */
  author: Author;
  confirmations: Confirmations;
}

/**
 * What a tool may do: `read` changes nothing; `write` changes the project's data; `send` makes mail
 * leave and runs only with a confirmation token from a first call (modules/mcp/confirmed-tools.ts).
 */
export type ToolEffect = 'read' | 'write' | 'send';

/** One MCP tool: its input is a zod object taken from the API's schemas, and it runs a service function. */
export interface Tool<Input extends z.AnyZodObject = z.AnyZodObject> {
  name: string;
  title: string;
  description: string;
  effect: ToolEffect;
  /** What a named API key needs among its scopes to be offered the tool (the scope of the route it stands for). */
  scope: Scope;
  input: Input;
  run(call: ToolCall, args: z.output<Input>): Promise<unknown>;
}

/** Declares a tool with its argument types inferred from its input schema. */
export const tool = <Input extends z.AnyZodObject>(definition: Tool<Input>): Tool => definition as unknown as Tool;
