import { describe, expect, it } from 'vitest';
import { rewriteLinks } from '../../src/domain/email-html.js';
import {
  INLINE_LIMITS,
  InlineLimitReached,
  inlineCandidate,
  parseCheck,
  renderInline,
  renderSubject,
  TemplateError,
} from '../../src/domain/render.js';
import { textFromHtml } from '../../src/platform/mail/message.js';
import { INLINE_TEXT_CHARS } from '../../src/platform/untrusted/pool.js';

// The work done on the event loop for untrusted input is bounded by its size: these inputs took
// seconds to minutes with the earlier regular expressions (quadratic on them) and must now finish
// at once. The bound asserted is generous (a second for a megabyte); the point is the order of growth.

const MB = 1024 * 1024;

function timed(run: () => unknown): number {
  const started = performance.now();
  try {
    run();
  } catch {
    // a syntax error is a fine outcome; only the time matters here
  }
  return performance.now() - started;
}

describe('linear pre-pass of templates', () => {
  it.each([
    ['unclosed {{ with quotes', '{{ "'.repeat(MB / 4)],
    ['unclosed {{', '{{ a '.repeat(MB / 5)],
    ['a long run of spaces inside an operand', `{{ a${' '.repeat(MB)}b ?? c }}`],
    ['an unclosed raw block after a placeholder', `{{ a }}${'{% raw %}'.repeat(MB / 9)}`],
  ])('%s (1 MB) is read in one pass', (_name, source) => {
    expect(timed(() => parseCheck(source, 'body'))).toBeLessThan(1_000);
  });

  it('keeps the rewriting it did before', () => {
    expect(
      renderInline('{{- first name -}}|{{first name ?? "x"}}|{% raw %}{{ first name }}{% endraw %}', 'body', {
        'first name': 'Ann',
      }),
    ).toBe('Ann|Ann|{{ first name }}');
    expect(() => parseCheck('{{ ?? "x" }}', 'body')).toThrow(TemplateError);
  });

  it('puts a subject on one line in linear time, with the same result as before', () => {
    expect(renderSubject('{{ s }}', { s: 'a \n \n b\r\nc\n' })).toBe('a b c ');
    expect(timed(() => renderSubject('{{ s }}', { s: `${' '.repeat(60_000)}x\ny` }))).toBeLessThan(1_000);
  });
});

describe('linear link rewriting', () => {
  it.each([
    ['<a without an end', '<a '.repeat(MB / 3)],
    ['<a with an unclosed quote', '<a "'.repeat(MB / 4)],
    ['an unclosed comment', '<!--'.repeat(MB / 4)],
  ])('%s (1 MB) is read in one pass', (_name, html) => {
    expect(
      timed(() =>
        rewriteLinks(
          html,
          (u) => `t:${u}`,
          () => false,
        ),
      ),
    ).toBeLessThan(1_000);
  });

  it('stops at a tag left open to the end of the document, as a browser reads it', () => {
    const html = '<a href="http://x.example/1">1</a><a title="open><a href="http://x.example/2">2</a>';
    expect(
      rewriteLinks(
        html,
        (u) => `t:${u}`,
        () => false,
      ),
    ).toBe(`<a href="t:http://x.example/1">1</a>${html.slice(html.indexOf('<a title'))}`);
  });
});

describe('inline parse bound', () => {
  // The inline path parses sources of at most 16 KiB on the event loop (once: the parse is
  // cached). liquidjs' parser is linear up to some ten thousand tokens and quadratic beyond
  // (it takes tokens with Array#shift); 16 KiB holds at most about 3,000. The worst shapes found,
  // each filling the limit, parse in under 10 ms here; the bound asserted leaves room for slow and
  // loaded machines (a quadratic parse of a megabyte, what the limit prevents, takes minutes).
  const K = INLINE_LIMITS.sourceChars;
  const fill = (head: string, unit: string, tail: string) =>
    head + unit.repeat(Math.floor((K - head.length - tail.length) / unit.length)) + tail;
  const shapes: Record<string, string> = {
    outputs: fill('', '{{a}}', ''),
    'and chain': fill('{% if a ', 'and a ', '%}x{% endif %}'),
    'cycle arguments': fill('{% cycle ', '"a", ', '"b" %}'),
    'bracket lookups': fill('{{ a', '["b"]', ' }}'),
    'elsif chain': fill('{% if a %}', '{% elsif a %}', '{% endif %}'),
    'raw blocks': fill('', '{% raw %}x{% endraw %}', ''),
    'liquid tag lines': fill('{% liquid\n', 'echo a\n', '%}'),
    '?? chain': fill('{{ a', ' ?? a', ' }}'),
    'spaced keys': fill('', '{{ first name }}', ''),
    'deep nesting': fill('', '{% if a %}', ''),
    'filter chain': fill('{{ a', ' | upcase', ' }}'),
  };
  it.each(Object.entries(shapes))('%s', (_name, source) => {
    expect(source.length).toBeLessThanOrEqual(K);
    expect(inlineCandidate(source)).toBe(true);
    timed(() => parseCheck(`${source.slice(0, -16)}<!-- warm -->`, 'body')); // the first parse also compiles the parser
    expect(timed(() => parseCheck(source, 'body'))).toBeLessThan(1_000);
  });
});

describe('inline render limits', () => {
  it('admits only small sources without array filters', () => {
    expect(inlineCandidate('Hi {{ name | upcase }} {% for i in items %}{{ i }}{% endfor %}')).toBe(true);
    expect(inlineCandidate('x'.repeat(INLINE_LIMITS.sourceChars + 1))).toBe(false);
    for (const filter of ['where', 'where_exp', 'find', 'find_exp', 'has_exp', 'sum', 'sort', 'map', 'uniq', 'join']) {
      expect(inlineCandidate(`{{ items |${filter}: "x" }}`), filter).toBe(false);
      expect(inlineCandidate(`{{ items | where_exp: "x", "x.tags |  ${filter}" }}`), filter).toBe(false);
    }
    expect(inlineCandidate('{{ summary | upcase }} {{ joined }}')).toBe(true);
  });

  it('hands over what reaches the inline memory or time limit instead of failing it', () => {
    expect(() => renderInline('{% assign r = (1..2000000) %}{{ r | size }}', 'body', {})).toThrow(InlineLimitReached);
    expect(() =>
      renderInline('{% for i in (1..900000) %}{% for j in (1..900000) %}{% endfor %}{% endfor %}', 'body', {}),
    ).toThrow(InlineLimitReached);
    // Other failures are the template's own.
    expect(() => renderInline('{{ x | no_such_filter }}', 'subject', {})).toThrow(TemplateError);
  });
});

describe('inline text part bound', () => {
  // HTML up to INLINE_TEXT_CHARS gets its text part on the event loop. html-to-text's cost grows
  // with nesting (quadratically) and length; at 16 KiB the worst shapes found take about 5 ms here
  // (a stack overflow, for the deepest, is caught and handed to the pool). The bound asserted leaves
  // room for a loaded machine; what the limit prevents (a megabyte of nesting) takes minutes.
  const K = INLINE_TEXT_CHARS;
  const fill = (head: string, unit: string, tail = '') =>
    head + unit.repeat(Math.floor((K - head.length - tail.length) / unit.length)) + tail;
  const shapes: Record<string, string> = {
    'nested div': fill('', '<div>'),
    'nested list': fill('', '<ul><li>'),
    'nested table': fill('', '<table><tr><td>x'),
    'unclosed p': fill('', '<p>'),
    'nested blockquote': fill('', '<blockquote>'),
    'flat blocks': fill('', '<div>x</div>'),
    'table cells': fill('<table>', '<tr><td>a</td><td>b</td></tr>', '</table>'),
    links: fill('', '<a href="https://x.example/a">l</a>'),
  };
  it.each(Object.entries(shapes))('%s', (_name, html) => {
    expect(html.length).toBeLessThanOrEqual(K);
    timed(() => textFromHtml(`${html}<!-- warm -->`));
    expect(timed(() => textFromHtml(html))).toBeLessThan(1_000);
  });
});
