import { describe, expect, it } from 'vitest';
import { DeadlineError, isDatabaseUnavailable } from '../../src/platform/db/client.js';
import { GroupCommit, type Outcome, takeBatch } from '../../src/platform/group-commit.js';

describe('takeBatch', () => {
  it('takes items in arrival order up to the maximum and keeps the rest in order', () => {
    expect(takeBatch([1, 2, 3, 4, 5], 3)).toEqual({ batch: [1, 2, 3], rest: [4, 5] });
    expect(takeBatch([1, 2], 3)).toEqual({ batch: [1, 2], rest: [] });
    expect(takeBatch([], 3)).toEqual({ batch: [], rest: [] });
  });

  it('leaves a second item with the same key for a later batch, and takes the ones after it', () => {
    const items = [{ id: 1, key: 'a' }, { id: 2, key: 'a' }, { id: 3 }, { id: 4, key: 'b' }, { id: 5, key: 'a' }];
    const { batch, rest } = takeBatch(items, 10, (i) => i.key);
    expect(batch.map((i) => i.id)).toEqual([1, 3, 4]);
    expect(rest.map((i) => i.id)).toEqual([2, 5]);
    // The next batch takes the first waiting one of the key, the one after it waits again.
    expect(takeBatch(rest, 10, (i) => i.key).batch.map((i) => i.id)).toEqual([2]);
  });

  it('counts only the items it takes against the maximum', () => {
    const items = [{ key: 'a' }, { key: 'a' }, { key: 'b' }, { key: 'c' }];
    const { batch, rest } = takeBatch(items, 2, (i) => i.key);
    expect(batch).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect(rest).toEqual([{ key: 'a' }, { key: 'c' }]);
  });
});

/** A writer whose batches finish when the test says so. */
function controlledWriter<T>() {
  const batches: { items: T[]; finish(outcomes?: Outcome<string>[]): void; fail(error: unknown): void }[] = [];
  const write = (items: T[]) =>
    new Promise<Outcome<string>[]>((resolve, reject) => {
      batches.push({
        items,
        finish: (outcomes) => resolve(outcomes ?? items.map((i) => ({ ok: true, value: `done ${String(i)}` }))),
        fail: reject,
      });
    });
  return { batches, write };
}

/** Lets a few turns of the event loop pass: the batches due by then have started. */
async function turn() {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('GroupCommit', () => {
  it('writes a lone item at once, and the items that arrive meanwhile together in the next batch', async () => {
    const writer = controlledWriter<number>();
    const group = new GroupCommit({ write: writer.write, deadlineMs: 60_000, maxBatch: 10, maxInFlight: 1 });
    const first = group.submit(1);
    await turn();
    expect(writer.batches.map((b) => b.items)).toEqual([[1]]);

    const later = [2, 3, 4].map((i) => group.submit(i));
    await turn();
    expect(writer.batches).toHaveLength(1);
    expect(group.waiting).toBe(3);

    writer.batches[0]!.finish();
    expect(await first).toBe('done 1');
    await turn();
    expect(writer.batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]]);
    expect(group.waiting).toBe(0);
    writer.batches[1]!.finish();
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('takes the items submitted in one turn of the event loop together', async () => {
    const writer = controlledWriter<number>();
    const group = new GroupCommit({ write: writer.write, deadlineMs: 60_000, maxBatch: 10, maxInFlight: 2 });
    const all = [1, 2, 3].map((i) => group.submit(i));
    await turn();
    expect(writer.batches.map((b) => b.items)).toEqual([[1, 2, 3]]);
    writer.batches[0]!.finish();
    await Promise.all(all);
  });

  it('keeps at most maxInFlight batches of at most maxBatch items in flight', async () => {
    const writer = controlledWriter<number>();
    const group = new GroupCommit({ write: writer.write, deadlineMs: 60_000, maxBatch: 2, maxInFlight: 2 });
    const all = [1, 2, 3, 4, 5].map((i) => group.submit(i));
    await turn();
    expect(writer.batches.map((b) => b.items)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(group.waiting).toBe(1);
    writer.batches[1]!.finish();
    await turn();
    expect(writer.batches.map((b) => b.items)).toEqual([[1, 2], [3, 4], [5]]);
    writer.batches[0]!.finish();
    writer.batches[2]!.finish();
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5].map((i) => `done ${i}`));
  });

  it('answers each item with its own outcome', async () => {
    const writer = controlledWriter<number>();
    const group = new GroupCommit({ write: writer.write, deadlineMs: 60_000, maxBatch: 10, maxInFlight: 1 });
    const results = [1, 2, 3].map((i) =>
      group.submit(i).then(
        (value) => ({ value }),
        (error: Error) => ({ error: error.message }),
      ),
    );
    await turn();
    writer.batches[0]!.finish([
      { ok: true, value: 'one' },
      { ok: false, error: new Error('two failed') },
      { ok: true, value: 'three' },
    ]);
    expect(await Promise.all(results)).toEqual([{ value: 'one' }, { error: 'two failed' }, { value: 'three' }]);
  });

  it('fails every item of a batch whose write throws, and goes on with the next batch', async () => {
    const writer = controlledWriter<number>();
    const group = new GroupCommit({ write: writer.write, deadlineMs: 60_000, maxBatch: 10, maxInFlight: 1 });
    const failed = [1, 2].map((i) => group.submit(i).catch((e: Error) => e.message));
    await turn();
    const next = group.submit(3);
    writer.batches[0]!.fail(new Error('database gone'));
    expect(await Promise.all(failed)).toEqual(['database gone', 'database gone']);
    await turn();
    writer.batches[1]!.finish();
    expect(await next).toBe('done 3');
  });

  it('never puts two items with one exclusive key in the same batch', async () => {
    const writer = controlledWriter<{ id: number; key?: string }>();
    const group = new GroupCommit({
      write: writer.write,
      deadlineMs: 60_000,
      maxBatch: 10,
      maxInFlight: 1,
      exclusiveKey: (i) => i.key,
    });
    const all = [{ id: 1, key: 'k' }, { id: 2, key: 'k' }, { id: 3 }].map((i) => group.submit(i));
    await turn();
    expect(writer.batches.map((b) => b.items.map((i) => i.id))).toEqual([[1, 3]]);
    writer.batches[0]!.finish([
      { ok: true, value: 'a' },
      { ok: true, value: 'b' },
    ]);
    await turn();
    expect(writer.batches.map((b) => b.items.map((i) => i.id))).toEqual([[1, 3], [2]]);
    writer.batches[1]!.finish([{ ok: true, value: 'c' }]);
    expect(await Promise.all(all)).toEqual(['a', 'c', 'b']);
  });
});

describe('GroupCommit deadlines', () => {
  it('answers a queued item and an item of the batch being written with a DeadlineError at the deadline, and hands the writer its batch deadline', async () => {
    const writer = controlledWriter<number>();
    const deadlines: number[] = [];
    const group = new GroupCommit({
      write: (items: number[], deadline: number) => {
        deadlines.push(deadline);
        return writer.write(items);
      },
      deadlineMs: 200,
      maxBatch: 10,
      maxInFlight: 1,
    });
    const submittedAt = Date.now();
    const inBatch = group.submit(1).catch((e: Error) => e);
    await turn();
    const queued = group.submit(2).catch((e: Error) => e);
    expect(writer.batches.map((b) => b.items)).toEqual([[1]]);
    expect(deadlines[0]).toBeGreaterThanOrEqual(submittedAt + 200);
    expect(deadlines[0]).toBeLessThanOrEqual(Date.now() + 200);

    for (const answer of await Promise.all([inBatch, queued])) {
      expect(answer).toBeInstanceOf(DeadlineError);
      expect(isDatabaseUnavailable(answer)).toBe(true);
    }
    // The writer finishes late: nothing changes for the answered items, and the one answered in
    // the queue never goes to a batch.
    writer.batches[0]!.finish();
    await turn();
    expect(writer.batches.map((b) => b.items)).toEqual([[1]]);
    expect(group.waiting).toBe(0);
  });
});
