import { describe, expect, it } from 'vitest';
import type { Database, Executor } from '../../src/platform/db/client.js';
import { NotifiedCache, NotifiedCaches } from '../../src/platform/notified-cache.js';

/** Only LISTEN is used by the cache; the notifications are delivered by hand. */
function listeningDatabase() {
  let notify: (payload: string) => void = () => {};
  let live = true;
  const database = {
    listen: async (_channel: string, onNotify: (payload: string) => void) => {
      notify = onNotify;
      return async () => {};
    },
    notificationsLive: () => live,
  } as unknown as Database;
  return { database, notify: (key: string) => notify(key), setLive: (value: boolean) => (live = value) };
}

describe('NotifiedCache', () => {
  it('reads through, keeping nothing, while notifications do not flow', async () => {
    const { database, notify, setLive } = listeningDatabase();
    const cache = new NotifiedCache<number>(database, 'things');
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('a', load)).toBe(1);
    // The LISTEN connection is lost: everything is dropped, and nothing read meanwhile is kept.
    setLive(false);
    notify('');
    expect(await cache.get('a', load)).toBe(2);
    expect(await cache.get('a', load)).toBe(3);
    setLive(true);
    notify('');
    expect(await cache.get('a', load)).toBe(4);
    expect(await cache.get('a', load)).toBe(4);
  });

  it('serves a loaded value until its key is notified', async () => {
    const { database, notify } = listeningDatabase();
    const cache = new NotifiedCache<number>(database, 'things');
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('a', load)).toBe(1);
    expect(await cache.get('a', load)).toBe(1);
    notify('a');
    expect(await cache.get('a', load)).toBe(2);
  });

  it('does not keep a value whose load was overtaken by a change', async () => {
    const { database, notify } = listeningDatabase();
    const cache = new NotifiedCache<string>(database, 'things');
    let release!: () => void;
    const slow = cache.get('a', () => new Promise<string>((resolve) => (release = () => resolve('before the change'))));
    await new Promise((r) => setImmediate(r));
    notify('a');
    release();
    expect(await slow).toBe('before the change');
    expect(await cache.get('a', async () => 'after the change')).toBe('after the change');
  });

  it("drops this process's copies at once when it announces a change, before its NOTIFY comes back", async () => {
    const { database } = listeningDatabase();
    const caches = new NotifiedCaches(database);
    const things = caches.of<number>('things');
    const others = caches.of<number>('others');
    let loads = 0;
    const load = async () => ++loads;
    expect(await things.get('a', load)).toBe(1);
    expect(await others.get('a', load)).toBe(2);
    const statements: unknown[] = [];
    const ex = { execute: async (statement: unknown) => statements.push(statement) } as unknown as Executor;
    await caches.changed(ex, 'things', 'a');
    expect(statements).toHaveLength(1);
    expect(await things.get('a', load)).toBe(3);
    expect(await others.get('a', load)).toBe(2);
  });
});
