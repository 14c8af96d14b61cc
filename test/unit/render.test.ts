import { Liquid } from 'liquidjs';
import { describe, expect, it, vi } from 'vitest';
import { parseCheck, renderBody, renderSubject, TemplateError, templateScope } from '../../src/domain/render.js';

const urls = {
  unsubscribeUrl: 'https://mail.example.com/u/abc?c=1&s=xyz',
  subscribeUrl: 'https://mail.example.com/s/abc',
  manageUrl: 'https://mail.example.com/m/abc',
};

function scopeOf(data: Record<string, unknown>, transient: Record<string, unknown> = {}) {
  return templateScope({ id: 'contact-1', email: 'ann@example.com', data }, transient, urls);
}

const scope = scopeOf({
  firstName: 'Ann',
  'first name': 'Annie',
  plan: 'pro',
  count: 3,
  nickname: null,
  empty: '',
  off: false,
  company: { name: 'Acme', address: { city: 'Lyon' } },
  items: [
    { name: 'Pen', price: 2 },
    { name: 'Ink', price: 5 },
  ],
});

const body = (source: string, s: Record<string, unknown> = scope) => renderBody(source, s);

function templateErrorOf(run: () => unknown): TemplateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return error as TemplateError;
  }
  throw new Error('expected a TemplateError');
}

describe('template scope', () => {
  it('exposes data keys at top level, under data, and the service values', () => {
    const s = scopeOf({ plan: 'pro' });
    expect(s).toMatchObject({
      plan: 'pro',
      data: { plan: 'pro' },
      email: 'ann@example.com',
      id: 'contact-1',
      svc_email: 'ann@example.com',
      svc_id: 'contact-1',
      ...urls,
    });
    expect(body('{{ plan }}/{{ data.plan }}/{{ email }}/{{ id }}/{{ svc_email }}/{{ svc_id }}', s)).toBe(
      'pro/pro/ann@example.com/contact-1/ann@example.com/contact-1',
    );
  });

  it('lets transient values override stored data, at top level and under data', () => {
    const s = scopeOf({ plan: 'free', city: 'Lyon' }, { plan: 'trial', code: '123' });
    expect(body('{{ plan }} {{ data.plan }} {{ city }} {{ code }}', s)).toBe('trial trial Lyon 123');
  });

  it('lets service values win over data keys of the same name', () => {
    const s = scopeOf(
      {
        email: 'evil@x.com',
        id: 'forged',
        svc_id: 'forged',
        unsubscribeUrl: 'https://evil',
        manageUrl: 'https://evil',
        data: 'x',
      },
      { subscribeUrl: 'https://evil', svc_email: 'evil@x.com' },
    );
    expect(
      body(
        '{{ email }}|{{ id }}|{{ svc_id }}|{{ svc_email }}|{{ unsubscribeUrl }}|{{ subscribeUrl }}|{{ manageUrl }}',
        s,
      ),
    ).toBe(
      'ann@example.com|contact-1|contact-1|ann@example.com|https://mail.example.com/u/abc?c=1&amp;s=xyz|https://mail.example.com/s/abc|https://mail.example.com/m/abc',
    );
    expect(body('{{ data.unsubscribeUrl }}', s)).toBe('https://evil'); // the data object itself is still the contact's
  });
});

describe('Liquid features', () => {
  it.each([
    [
      'resolves names and dotted paths; missing variables render empty',
      'Hi {{ firstName }} of {{ company.name }} in {{ company.address.city }}' +
        '{{ nothing }}{{ company.nothing.deeper }}!',
      'Hi Ann of Acme in Lyon!',
    ],
    [
      'runs loops',
      '{% for item in items %}{{ forloop.index }}.{{ item.name }}={{ item.price }};{% endfor %}',
      '1.Pen=2;2.Ink=5;',
    ],
    [
      'applies filters',
      '{{ firstName | upcase }} {{ count | plus: 2 }} ' +
        '{{ items | map: "name" | join: ", " }} {{ nothing | default: "d" }}',
      'ANN 5 Pen, Ink d',
    ],
  ])('%s', (_title, source, rendered) => {
    expect(body(source)).toBe(rendered);
  });

  it('runs conditionals', () => {
    const source = '{% if plan == "pro" %}P{% elsif plan == "free" %}F{% else %}?{% endif %}';
    expect(body(source)).toBe('P');
    expect(body(source, scopeOf({ plan: 'free' }))).toBe('F');
    expect(body(source, scopeOf({}))).toBe('?');
  });

  it('hides inherited properties', () => {
    const inherited = Object.assign(Object.create({ secret: 'S' }) as object, { own: 'o' });
    expect(
      body(
        '[{{ thing.own }}{{ thing.secret }}{{ company.toString }}{{ firstName.constructor }}{{ __proto__ }}]',
        scopeOf({ thing: inherited, company: {} }),
      ),
    ).toBe('[o]');
  });
});

describe('the ?? default', () => {
  it.each<[title: string, cases: [source: string, rendered: string][]]>([
    ['keeps a present value', [['{{ firstName ?? "friend" }}', 'Ann']]],
    [
      'supplies a literal string or number when the field is missing',
      [
        ['{{ name ?? "friend" }}', 'friend'],
        ['{{ missing ?? 0 }}|{{ missing ?? 2.5 }}', '0|2.5'],
        ['{{ missing ?? 0 | plus: 1 }}', '1'],
      ],
    ],
    [
      'supplies another field',
      [
        ['{{ nickname ?? firstName }}', 'Ann'],
        ['{{ company.nickname ?? company.name }}', 'Acme'],
      ],
    ],
    [
      'treats null like missing, but an empty string or false as a value',
      [
        ['{{ nickname ?? "n" }}', 'n'],
        ['[{{ empty ?? "e" }}]', '[]'],
        ['{{ off ?? true }}', 'false'],
        ['{{ count ?? 0 }}', '3'],
      ],
    ],
    [
      'chains, taking the first present value',
      [
        ['{{ a ?? b ?? "x" }}', 'x'],
        ['{{ a ?? nickname ?? firstName ?? "x" }}', 'Ann'],
      ],
    ],
    [
      'applies filters after it to the whole chain',
      [
        ['{{ name ?? "friend" | upcase }}', 'FRIEND'],
        ['{{ firstName ?? "friend" | upcase }}', 'ANN'],
        ['{{ a ?? b ?? "x" | append: "!" }}', 'x!'],
      ],
    ],
  ])('%s', (_, cases) => {
    for (const [source, rendered] of cases) expect(body(source), source).toBe(rendered);
  });

  it('binds looser than comparisons and tighter than and/or; parentheses group', () => {
    // like JavaScript: a ?? (b == c)
    expect(body('{{ missing ?? "pro" == "pro" }}')).toBe('true');
    expect(body('{{ "basic" ?? "free" == "pro" }}')).toBe('basic');
    // (a == b) ?? c
    expect(body('{{ plan == "pro" ?? "x" }}')).toBe('true');
    // (a ?? b) and c
    expect(body('{% if missing ?? false and true %}T{% else %}F{% endif %}')).toBe('F');
    const grouped = '{% if (plan ?? "free") == "pro" %}T{% else %}F{% endif %}';
    expect(body(grouped)).toBe('T');
    expect(body(grouped, scopeOf({ plan: 'basic' }))).toBe('F');
    expect(body(grouped, scopeOf({}))).toBe('F');
    expect(body('{{ (missing ?? "p") | upcase }}')).toBe('P');
  });

  it('works in if, assign and echo', () => {
    expect(body('{% if missing ?? true %}yes{% endif %}{% if nickname ?? false %}no{% endif %}')).toBe('yes');
    expect(body('{% assign greeting = missing ?? "hey" %}{{ greeting }}')).toBe('hey');
    expect(body('{% echo missing ?? "e" %}')).toBe('e');
  });

  it('refuses a ?? with a missing operand', () => {
    for (const source of ['{{ name ?? }}', '{{ ?? "x" }}', '{{ a ?? ?? "x" }}', '{{ a ?? | upcase }}']) {
      expect(templateErrorOf(() => parseCheck(source, 'body')).message).toContain('??');
    }
  });

  it('leaves ?? inside string literals alone', () => {
    expect(body('{{ "a ?? b c ?? d" }}|{{ missing ?? "who ?? what | x" }}')).toBe('a ?? b c ?? d|who ?? what | x');
  });
});

describe('keys containing spaces', () => {
  it('resolve when referenced directly', () => {
    expect(body('Hi {{ first name }}!')).toBe('Hi Annie!');
    expect(body('Hi {{first name}}, {{- first name -}} .')).toBe('Hi Annie,Annie.');
    expect(body('{{ first name | upcase }}')).toBe('ANNIE');
  });

  it('resolve with ?? on either side', () => {
    expect(body('Hi {{ first name ?? "there" }}')).toBe('Hi Annie');
    expect(body('Hi {{ first name ?? "there" }}', scopeOf({}))).toBe('Hi there');
    expect(body('Hi {{ nickname ?? first name ?? "there" }}')).toBe('Hi Annie');
  });

  it('resolve by bracket lookup on data', () => {
    expect(body('{{ data["first name"] }}|{{ data.firstName }}')).toBe('Annie|Ann');
  });

  it('are not rewritten when the words form a Liquid expression, or inside raw', () => {
    const s = scopeOf({ a: true, b: false, 'a and b': 'spaced' });
    expect(body('{{ a and b }}|{{ a or b }}|{{ not a }}', s)).toBe('false|true|false');
    expect(body('{% raw %}{{ first name }}{% endraw %}')).toBe('{{ first name }}');
    expect(body('a{% comment %}{{ first name ?? }}{% endcomment %}b')).toBe('ab');
  });
});

describe('escaping', () => {
  const hostile = scopeOf({ name: '<script>alert("x")</script>', snippet: '<b>bold</b> & co' });

  it('escapes every output in a body', () => {
    expect(body('<p>{{ name }}</p>', hostile)).toBe('<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</p>');
    expect(body('{{ name | upcase }}', hostile)).toBe('&lt;SCRIPT&gt;ALERT(&#34;X&#34;)&lt;/SCRIPT&gt;');
    expect(body('{{ missing ?? name }}', hostile)).toContain('&lt;script&gt;');
  });

  it('does not escape a body output whose last filter is raw', () => {
    expect(body('<div>{{ snippet | raw }}</div>', hostile)).toBe('<div><b>bold</b> & co</div>');
  });

  it('does not escape an explicit escape filter twice', () => {
    expect(body('{{ snippet | escape }}', hostile)).toBe('&lt;b&gt;bold&lt;/b&gt; &amp; co');
  });

  it('turns & in URLs into &amp;, as an HTML attribute needs', () => {
    expect(body('<a href="{{ unsubscribeUrl }}">x</a>')).toBe(
      '<a href="https://mail.example.com/u/abc?c=1&amp;s=xyz">x</a>',
    );
  });

  it('never escapes a subject, which is plain text on one line', () => {
    expect(renderSubject('Hello {{ name }} & {{ snippet }}', hostile)).toBe(
      'Hello <script>alert("x")</script> & <b>bold</b> & co',
    );
    expect(renderSubject('Hi {{ firstName ?? "friend" | upcase }} {{ first name }}', scope)).toBe('Hi ANN Annie');
    expect(renderSubject('Hi {{ name }}', scopeOf({ name: 'Ann\r\nBcc: x@y.z' }))).toBe('Hi Ann Bcc: x@y.z');
  });
});

describe('safety', () => {
  it('refuses include, render and layout without reading a file', () => {
    for (const source of [
      '{% include "/etc/passwd" %}',
      "{% render '../package.json' %}",
      '{% layout "base" %}x',
      '{% liquid\ninclude "x"\n%}',
    ]) {
      const error = templateErrorOf(() => body(source));
      expect(error.part).toBe('body');
      expect(error.message).not.toContain('root:');
      expect(templateErrorOf(() => parseCheck(source, 'subject')).part).toBe('subject');
    }
  });

  it('stops a runaway loop quickly', () => {
    const error = templateErrorOf(() => body('{% for i in (1..100000000) %}x{% endfor %}'));
    expect(error.message).toMatch(/limit/);
  });

  it('stops a slow render at its time limit', () => {
    const error = templateErrorOf(() =>
      body('{% for i in (1..3000) %}{% for j in (1..3000) %}x{% endfor %}{% endfor %}'),
    );
    expect(error.message).toBe('Rendering took longer than 0.2 s (the limit) and was stopped');
  });

  it('refuses undefined filters', () => {
    const error = templateErrorOf(() => renderSubject('{{ name | no_such_filter }}', scope));
    expect(error.part).toBe('subject');
    expect(error.message).toContain('no_such_filter');
  });

  it('reports syntax errors with the part', () => {
    expect(() => parseCheck('{% if plan %}open', 'body')).toThrow(TemplateError);
    const subject = templateErrorOf(() => parseCheck('Hi {{ name', 'subject'));
    expect(subject.part).toBe('subject');
    expect(subject.name).toBe('TemplateError');
    expect(templateErrorOf(() => renderBody('{% for %}', scope)).part).toBe('body');
    expect(() =>
      parseCheck('Hi {{ first name ?? "there" | upcase }}, {% if plan %}{{ plan }}{% endif %}', 'body'),
    ).not.toThrow();
  });
});

describe('parse cache', () => {
  it('parses a source once, keeping the 1,000 most recently used', () => {
    const parse = vi.spyOn(Liquid.prototype, 'parse');
    try {
      const first = '{{ firstName }} <!-- cache test -->';
      expect(body(first)).toBe('Ann <!-- cache test -->');
      expect(body(first)).toBe('Ann <!-- cache test -->');
      parseCheck(first, 'body');
      expect(parse).toHaveBeenCalledTimes(1);
      renderSubject(first, scope); // subjects are parsed differently (no escaping), so cached apart
      expect(parse).toHaveBeenCalledTimes(2);
      let n = 0;
      const fresh = (count: number) => {
        for (const end = n + count; n < end; ) body(`{{ plan }} ${n++}`);
      };
      fresh(999); // the cache is now first and these 999
      body(first); // a hit, which makes it the most recently used
      fresh(999);
      expect(body(first)).toBe('Ann <!-- cache test -->'); // still a hit: the 999 older ones went first
      expect(parse).toHaveBeenCalledTimes(2 + 1998);
      fresh(1000);
      expect(body(first)).toBe('Ann <!-- cache test -->'); // evicted by 1,000 newer sources: parsed again
      expect(parse).toHaveBeenCalledTimes(2 + 2998 + 1);
    } finally {
      parse.mockRestore();
    }
  });
});
