import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import { booleanQuery } from '../../platform/http/pagination.js';
import { instanceSecret } from '../../platform/secrets.js';
import { authorOf } from '../templates/versions.js';
import { Confirmations } from './confirmation.js';
import { projectMcpServer } from './server.js';

const mcpQuery = z.object({ readOnly: booleanQuery.default('false') });

/**
 * `/mcp`: the MCP server over Streamable HTTP, for the project of the secret key. Stateless: each
 * request gets a server of its own and answers in JSON, so any API replica serves any request and
 * nothing is kept between them (confirmation tokens are signed, not stored).
 */
export const mcpRoutes = moduleRoutes(
  'MCP',
  async (app, ctx) => {
    const confirmations = new Confirmations(await instanceSecret(ctx.db, 'mcp-confirmation-key'));
    const handle = async (req: FastifyRequest, reply: FastifyReply) => {
      const { readOnly } = req.query as z.output<typeof mcpQuery>;
      const project = projectOf(req);
      const server = projectMcpServer(
        { ctx, projectId: project.id, author: authorOf(project), confirmations },
        { readOnly, scopes: project.scopes, apiReference: () => app.swagger() },
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.setHeader('x-request-id', String(req.id));
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    };
    const options = { schema: { hide: true, querystring: mcpQuery } };
    app.post('/mcp', options, handle);
    app.get('/mcp', options, handle);
    app.delete('/mcp', options, handle);
  },
  { scope: 'any' },
);
