import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateError } from '../../src/domain/render.js';
import { ContentLimitError, PoolBusyError, UntrustedPool } from '../../src/platform/untrusted/pool.js';
import { TemplateRenderer } from '../../src/platform/untrusted/templates.js';

// The worker-thread pool for untrusted content, with real threads: deadlines stop runaway work
// and the pool goes on serving; the renderer keeps small templates on the event loop and sends
// everything else to the pool.

let pool: UntrustedPool;
let renderer: TemplateRenderer;

const silent = pino({ level: 'silent' });
/** A render that liquidjs' own limit, checked between nodes, does not stop: one filter call runs for minutes. */
const ESCAPES_LIQUID_LIMIT = `{% assign a = (1..3000) %}{{ a | where_exp: "x", "a | where_exp: 'y', 'y == x' | size" | size }}`;

beforeAll(() => {
  pool = new UntrustedPool({ threads: 2, log: silent });
  renderer = new TemplateRenderer(pool);
});
afterAll(() => pool?.close());

/** The longest gap between timer ticks (every 10 ms) while `work` runs: how long the event loop was held. */
async function maxLoopLag<T>(work: () => Promise<T>): Promise<{ result: T; lagMs: number }> {
  let last = performance.now();
  let lagMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lagMs = Math.max(lagMs, now - last - 10);
    last = now;
  }, 10);
  try {
    return { result: await work(), lagMs };
  } finally {
    clearInterval(timer);
  }
}

describe('TemplateRenderer', () => {
  it('admits a small template to the event loop after the pool parsed it', async () => {
    const source = 'Hi {{ name ?? "you" }}! <!-- admitted -->';
    expect(renderer.placement('body', source)).toBeUndefined();
    expect(await renderer.render('body', source, { name: 'Ann' })).toBe('Hi Ann! <!-- admitted -->');
    expect(renderer.placement('body', source)).toBe('inline');
    expect(await renderer.render('body', source, {})).toBe('Hi you! <!-- admitted -->');
  });

  it('in a worker process (inlineFirst), renders an eligible source on the event loop from the start', async () => {
    const first = new TemplateRenderer(pool, { inlineFirst: true });
    const busyBefore = pool.load().template;
    expect(await first.render('body', 'Dear {{ name }} <!-- inline first -->', { name: 'Bo' })).toBe(
      'Dear Bo <!-- inline first -->',
    );
    expect(first.placement('body', 'Dear {{ name }} <!-- inline first -->')).toBe('inline');
    expect(pool.load().template).toEqual(busyBefore);
    const filtered = '{{ items | map: "n" | join: "," }} <!-- inline first -->';
    expect(await first.render('body', filtered, { items: [{ n: 1 }, { n: 2 }] })).toBe('1,2 <!-- inline first -->');
    expect(first.placement('body', filtered)).toBeUndefined(); // never inline: not even remembered
  });

  it('keeps large sources and array filters in the pool', async () => {
    const large = `${'<p>filler</p>'.repeat(3_000)}{{ name }}`;
    expect(await renderer.render('body', large, { name: 'Ann' })).toMatch(/Ann$/);
    expect(renderer.placement('body', large)).toBeUndefined(); // never inline: not even remembered
    const filtered = '{{ items | where: "on", true | size }}';
    expect(await renderer.render('body', filtered, { items: [{ on: true }, { on: false }] })).toBe('1');
    expect(renderer.placement('body', filtered)).toBeUndefined();
  });

  it('moves a template that reached the inline limits to the pool for good, with the same result', async () => {
    const source = '{% assign r = x | append: x %}{{ r | size }} <!-- escalates -->';
    expect(await renderer.render('body', source, { x: 'abc' })).toBe('6 <!-- escalates -->');
    expect(renderer.placement('body', source)).toBe('inline');
    // 1,200,000 characters exceed the inline memory limit (1,000,000) but not the engine's (10,000,000);
    // a string, not a range, so that the pool's render takes milliseconds even on a loaded machine.
    const x = 'a'.repeat(600_000);
    expect(await renderer.render('body', source, { x })).toBe('1200000 <!-- escalates -->');
    expect(renderer.placement('body', source)).toBe('heavy');
    expect(await renderer.render('body', source, { x: 'ab' })).toBe('4 <!-- escalates -->');
  });

  it('keeps a template inline when one render of it is held up by a pause of the process', async () => {
    const source = 'Hi {{ name }}! <!-- paused once -->';
    const first = new TemplateRenderer(pool, { inlineFirst: true });
    expect(await first.render('body', source, { name: 'Ann' })).toBe('Hi Ann! <!-- paused once -->');
    const busyBefore = pool.load().template;
    let reads = 0;
    const scope = {
      get name() {
        // The first read holds the thread past the inline limit between two nodes, as a collection would.
        if (reads++ === 0) for (const until = performance.now() + 30; performance.now() < until; );
        return 'Bo';
      },
    };
    expect(await first.render('body', source, scope)).toBe('Hi Bo! <!-- paused once -->');
    expect(reads).toBe(2);
    expect(first.placement('body', source)).toBe('inline');
    expect(pool.load().template).toEqual(busyBefore);
  });

  it('stops a render that escapes liquidjs’ own limit at the deadline, with a TemplateError, and goes on', async () => {
    const { result, lagMs } = await maxLoopLag(() =>
      renderer.render('subject', ESCAPES_LIQUID_LIMIT, {}).catch((err: unknown) => err),
    );
    expect(result).toBeInstanceOf(TemplateError);
    expect(result).toMatchObject({
      part: 'subject',
      message: 'Rendering took longer than 2 s (the limit) and was stopped',
    });
    expect(lagMs).toBeLessThan(1_000);
    expect(await renderer.render('subject', 'Still {{ here }}', { here: 'here' })).toBe('Still here');
  });

  it('stops a parse that would take minutes at the deadline', async () => {
    const { result, lagMs } = await maxLoopLag(() =>
      renderer.check('body', '{{a}}'.repeat(1_800_000)).catch((err: unknown) => err),
    );
    expect(result).toMatchObject({ part: 'body', message: 'Parsing took longer than 2 s (the limit) and was stopped' });
    expect(lagMs).toBeLessThan(1_000);
  });

  it('reports syntax errors as TemplateError, wherever it parsed', async () => {
    await expect(renderer.check('body', '{% if x %}open')).rejects.toThrow(TemplateError);
    await expect(renderer.render('subject', 'Hi {{ name', {})).rejects.toMatchObject({ part: 'subject' });
  });
});

describe('UntrustedPool', () => {
  it('makes the text of ordinary HTML, and refuses HTML nested too deeply for it', async () => {
    expect(await pool.text('<p>Hello <a href="https://x.example/">there</a></p>')).toBe(
      'Hello there [https://x.example/]',
    );
    await expect(pool.text('<div>'.repeat(30_000))).rejects.toMatchObject({
      name: 'ContentLimitError',
      reason: 'invalid',
      message: 'its elements are nested too deeply',
    });
  });

  it('parses and sanitizes a message, and refuses a header over 1 MB with the parser’s code', async () => {
    const mail = await pool.mail(
      Buffer.from(
        'From: Ann <ann@x.example>\r\nSubject: Hi\r\nContent-Type: text/html\r\n\r\n<p onclick="x()">Hi</p><script>1</script>',
      ),
    );
    expect(mail).toMatchObject({
      from: { address: 'ann@x.example', name: 'Ann' },
      subject: 'Hi',
      html: '<p>Hi</p>',
      text: 'Hi',
    });
    const big = Buffer.from(`From: a@x.example\r\nX-Big: ${'x'.repeat(1_100_000)}\r\n\r\nHi`);
    const err = await pool.mail(big).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentLimitError);
    expect(err).toMatchObject({ reason: 'invalid', code: 'EMAXLEN' });
  });

  it('counts the deadline of a task that waits for its thread to start from when the thread is ready', async () => {
    // Starting a thread (loading its code) takes about half a second here, seconds on a busy machine:
    // about as long as this deadline, or longer. A first render on a fresh thread needs some of it too.
    const cold = () => new UntrustedPool({ threads: 2, warmThreads: 0, deadlines: { template: 1_000 }, log: silent });
    const ordinary = cold();
    try {
      const rendered = await Promise.all(
        [1, 2].map((n) => ordinary.template({ part: 'subject', source: 'Hi {{ n }}', scope: { n } })),
      );
      expect(rendered).toEqual([
        { ok: true, output: 'Hi 1' },
        { ok: true, output: 'Hi 2' },
      ]);
    } finally {
      await ordinary.close();
    }
    // Once the thread runs the task, the deadline stops it as always.
    const hostile = cold();
    try {
      const result = await hostile
        .template({ part: 'subject', source: ESCAPES_LIQUID_LIMIT, scope: {} })
        .catch((err: unknown) => err);
      expect(result).toBeInstanceOf(ContentLimitError);
      expect(result).toMatchObject({ reason: 'time', message: 'took longer than 1 s (the limit) and was stopped' });
    } finally {
      await hostile.close();
    }
  });

  it('generates RSA keys one at a time, eight waiting at most', async () => {
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => pool.rsaKey()));
    const made = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => (r as PromiseFulfilledResult<{ publicKey: Buffer; privateKey: string }>).value);
    expect(made).toHaveLength(9);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof PoolBusyError)).toHaveLength(3);
    expect(made[0]!.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(made[0]!.publicKey).toBeInstanceOf(Buffer);
  });

  it('refuses work beyond a kind’s queue at once, as busy (a temporary condition)', async () => {
    const raw = Buffer.from('From: a@x.example\r\n\r\nHi');
    // Inbound mail gets one of the two threads and eight places in line.
    const results = await Promise.allSettled(Array.from({ length: 14 }, () => pool.report(raw)));
    const busy = results.filter((r) => r.status === 'rejected' && r.reason instanceof PoolBusyError);
    expect(busy.length).toBe(5);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(9);
  });
});
