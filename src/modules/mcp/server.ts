import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../../domain/api-keys.js';
import * as fields from '../contacts/fields.js';
import { SEND_TOOLS } from './confirmed-tools.js';
import { READ_TOOLS } from './read-tools.js';
import type { Tool, ToolCall } from './tool.js';
import { toolError } from './tool-errors.js';
import { WRITE_TOOLS } from './write-tools.js';

/** The version of the API the tools follow (the OpenAPI document's). */
const API_VERSION = '1.0.0';

/** Every tool, in the order a client lists them. */
export const TOOLS: Tool[] = [...READ_TOOLS, ...WRITE_TOOLS, ...SEND_TOOLS];

export interface McpServerOptions {
  /** Offer only the tools that read: a client cannot change or send anything, whatever it asks. */
  readOnly: boolean;
  /** A named key's scopes: only the tools they cover are offered. Null for the project's secret key. */
  scopes: readonly Scope[] | null;
  /** The OpenAPI document of the API, served as the API reference resource. */
  apiReference: () => unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function resultOf(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    ...(isRecord(value) ? { structuredContent: value } : {}),
  };
}

async function runTool(call: ToolCall, t: Tool, args: unknown): Promise<CallToolResult> {
  try {
    return resultOf(await t.run(call, args as never));
  } catch (err) {
    const known = toolError(err);
    if (!known) call.ctx.log.error({ err, tool: t.name }, 'MCP tool failed');
    const error = known ?? { code: 'INTERNAL_SERVER_ERROR', message: 'The tool failed; try again later' };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }, null, 2) }] };
  }
}

/** The MCP server of one project: its tools call the same services as the HTTP routes. */
export function projectMcpServer(call: ToolCall, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'postbox', version: API_VERSION },
    {
      instructions:
        'Postbox, an email platform: contacts, events, templates, segments, campaigns, workflows. ' +
        'Tools that send (emails_send, campaigns_send) first return what would leave and a confirmationToken; ' +
        'show it to the user and call again with the token only once they agree.',
    },
  );
  for (const t of TOOLS) {
    if (options.readOnly && t.effect !== 'read') continue;
    if (options.scopes && !options.scopes.includes(t.scope)) continue;
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input,
        annotations: {
          title: t.title,
          readOnlyHint: t.effect === 'read',
          destructiveHint: false,
          idempotentHint: t.effect === 'read',
          openWorldHint: t.effect === 'send',
        },
      },
      (args: unknown) => runTool(call, t, args),
    );
  }
  server.registerResource(
    'api-reference',
    'postbox://reference/openapi.json',
    {
      title: 'API reference',
      description: 'The OpenAPI document of the Postbox API: every endpoint with its request and response schemas.',
      mimeType: 'application/json',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(options.apiReference()) }],
    }),
  );
  server.registerResource(
    'contact-fields',
    'postbox://contacts/fields',
    {
      title: 'Contact fields',
      description:
        'The fields of the project’s contacts (standard and custom data keys) with their type and how many contacts have them: what filter trees and Liquid placeholders can use.',
      mimeType: 'application/json',
    },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify(await fields.listFields(call.ctx, call.projectId)),
        },
      ],
    }),
  );
  return server;
}
