import { describe, expect, it } from 'vitest';
import { campaignSlots, type Lane, Places, RelayGate } from '../../src/modules/emails/lanes.js';

describe('campaignSlots', () => {
  it('leaves the reserved share (rounded up) to transactional mail, and at least one slot to campaigns', () => {
    expect(campaignSlots(20, 0.2)).toBe(16);
    expect(campaignSlots(5, 0.2)).toBe(4);
    expect(campaignSlots(30, 0.1)).toBe(27);
    expect(campaignSlots(1, 0.2)).toBe(1);
    expect(campaignSlots(10, 0)).toBe(10);
  });
});

describe('RelayGate', () => {
  /** A gate's runs that finish when told to, and the order in which they started. */
  function harness(slots: number, campaignLimit: number) {
    const gate = new RelayGate(slots, campaignLimit);
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const run = (lane: Lane, name: string) =>
      gate.run(lane, () => {
        started.push(name);
        return new Promise<void>((resolve) => finish.set(name, resolve));
      });
    const settle = () => new Promise((r) => setImmediate(r));
    return { run, started, finish: (name: string) => finish.get(name)!(), settle };
  }

  it('never lets campaign mail take the reserved slots', async () => {
    const h = harness(3, 2);
    for (const name of ['c1', 'c2', 'c3', 'c4']) void h.run('campaign', name);
    await h.settle();
    expect(h.started).toEqual(['c1', 'c2']);
    void h.run('transactional', 't1');
    await h.settle();
    expect(h.started).toEqual(['c1', 'c2', 't1']);
  });

  it('gives a free slot to waiting transactional mail before campaign mail that waited longer', async () => {
    const h = harness(2, 2);
    for (const name of ['c1', 'c2', 'c3']) void h.run('campaign', name);
    void h.run('transactional', 't1');
    await h.settle();
    expect(h.started).toEqual(['c1', 'c2']);
    h.finish('c1');
    await h.settle();
    expect(h.started).toEqual(['c1', 'c2', 't1']);
    h.finish('c2');
    await h.settle();
    expect(h.started).toEqual(['c1', 'c2', 't1', 'c3']);
  });

  it('frees the slot of a run that fails', async () => {
    const gate = new RelayGate(1, 1);
    await expect(gate.run('campaign', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await expect(gate.run('campaign', async () => 'sent')).resolves.toBe('sent');
  });
});

describe('Places', () => {
  it('gives at most max places at once, and a freed place to the first in line', async () => {
    const places = new Places(2);
    const order: number[] = [];
    const takers = [1, 2, 3, 4].map((n) => places.take().then(() => order.push(n)));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([1, 2]);
    places.free();
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([1, 2, 3]);
    places.free();
    places.free();
    await Promise.all(takers);
    expect(order).toEqual([1, 2, 3, 4]);
    // One place is taken now: the next taker goes at once, and the one after waits.
    let later = false;
    await places.take();
    void places.take().then(() => (later = true));
    await new Promise((r) => setImmediate(r));
    expect(later).toBe(false);
  });
});
