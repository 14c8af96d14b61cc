import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The SDK's own client, connected over `transport`. */
export async function mcpClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'postbox-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The SDK's client over Streamable HTTP to `/mcp` of a running service, with a project key. */
export function httpMcpClient(baseUrl: string, key: string, query = ''): Promise<Client> {
  return mcpClient(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
}

/** A tool's answer: the JSON it returned, and whether it is an error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  const text = content[0]?.text ?? '';
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { isError: result.isError === true, body };
}
