import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerAuth } from '../../src/platform/http/auth.js';

const keys = { resolve: async () => null, clear() {}, used() {} };
const sessions = { cookie: 'session', resolve: async () => null };

describe('every route that takes a key states its scope', () => {
  it('an app with a keyed route without one does not start, and says which', async () => {
    const app = Fastify();
    registerAuth(app, keys, sessions);
    app.get('/open', { config: { auth: 'none' } }, async () => 'open');
    app.get('/scoped', { config: { scope: 'send' } }, async () => 'scoped');
    app.post('/forgotten', async () => 'forgotten');
    await expect(app.ready()).rejects.toThrow('Routes without a scope: POST /forgotten');
  });

  it('starts when each has one', async () => {
    const app = Fastify();
    registerAuth(app, keys, sessions);
    app.get('/scoped', { config: { scope: { read: 'contacts:read', write: 'contacts:write' } } }, async () => 'ok');
    await expect(app.ready()).resolves.toBeDefined();
    await app.close();
  });
});
