import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Command } from '../command.js';

/**
 * `postbox mcp`: the instance's MCP server on stdin and stdout, for clients that start a command
 * (Claude Desktop, editors). Every message goes on to `/mcp` of the instance and every answer comes
 * back, so the tools are the server's own, with the key's project and nothing run locally.
 */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the instance’s MCP tools over stdio, for an MCP client',
  usage: '[--read-only]',
  help:
    'Relays MCP over stdin/stdout to /mcp of the instance (POSTBOX_URL) with the project key (POSTBOX_KEY).\n' +
    '  --read-only   offer only the tools that read; none that write or send\n\n' +
    'Client configuration:\n' +
    '  { "command": "npx", "args": ["postbox", "mcp"], "env": { "POSTBOX_URL": "https://…", "POSTBOX_KEY": "sk_…" } }',
  options: { 'read-only': { type: 'boolean' } },
  remote: true,
  async run(ctx) {
    const api = ctx.api();
    // Loaded here, not with the CLI: the other commands start (and stay) smaller without the SDK.
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const url = new URL(`/mcp${ctx.values['read-only'] ? '?readOnly=true' : ''}`, api.url);
    const remote = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${api.key}` } },
    });
    const local = new StdioServerTransport();
    // A request the instance could not answer still gets an answer, so the client never waits forever.
    const failed = (message: JSONRPCMessage, err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      ctx.note(`postbox mcp: ${reason}`);
      if ('id' in message && 'method' in message) {
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: reason } });
      }
    };
    local.onmessage = (message) => void remote.send(message).catch((err) => failed(message, err));
    remote.onmessage = (message) => void local.send(message);
    remote.onerror = (err) => ctx.note(`postbox mcp: ${err.message}`);
    await remote.start();
    await local.start();
    await new Promise<void>((resolve) => {
      local.onclose = resolve;
      process.stdin.once('end', resolve);
    });
    await remote.close();
  },
};
