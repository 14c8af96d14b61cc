import { describe, expect, it } from 'vitest';
import { templateScope } from '../../src/domain/render.js';
import { emptyPlaceholders } from '../../web/src/pages/templates/empty-placeholders.js';

const urls = { unsubscribeUrl: 'u', subscribeUrl: 's', manageUrl: 'm' };
const scopeOf = (data: Record<string, unknown>) =>
  templateScope({ id: 'c1', email: 'ada@example.com', data }, {}, urls);
const names = (subject: string, body: string, data: Record<string, unknown>) =>
  emptyPlaceholders({ subject, body }, scopeOf(data)).map((p) => p.name);

describe('placeholders that would print nothing', () => {
  it('lists a variable the recipient lacks, and one that is empty, in the order they appear', () => {
    const body = '<p>Hi {{ firstName }}, on the {{ plan }} plan in {{ city }}.</p>';
    expect(names('', body, { firstName: 'Ada', city: '' })).toEqual(['plan', 'city']);
    expect(emptyPlaceholders({ subject: 'For {{ plan }}', body }, scopeOf({}))).toEqual([
      { name: 'plan', parts: ['subject', 'body'] },
      { name: 'firstName', parts: ['body'] },
      { name: 'city', parts: ['body'] },
    ]);
  });

  it('leaves out placeholders with a ?? default or the default filter, and values that print', () => {
    const body =
      '{{ plan ?? "free" }} {{ name | default: "friend" }} {{ seats }} {{ trial }} {{ email }} {{ manageUrl }}';
    expect(names('', body, { seats: 0, trial: false })).toEqual([]);
  });

  it('follows paths, brackets and keys with spaces, and filters do not hide an empty value', () => {
    const body = '{{ data.city | upcase }} {{ ["last name"] }} {{ first name }} {{ tags.size }} {{ company.name }}';
    expect(names('', body, { city: 'Paris', tags: [], company: { name: 'Acme' } })).toEqual([
      '["last name"]',
      'first name',
    ]);
    expect(names('', '{{ data.city }} {{ tags }}', { tags: [] })).toEqual(['data.city', 'tags']);
  });

  it('skips what the template sets itself, literals, expressions and raw blocks', () => {
    const body = `{% for item in items %}{{ item.name }} {{ forloop.index }}{% endfor %}
      {% assign greeting = "Hi" %}{{ greeting }} {% capture note %}x{% endcapture %}{{ note }}
      {{ "literal" }} {{ 42 }} {% raw %}{{ missing }}{% endraw %}`;
    expect(names('', body, { items: [{ name: 'a' }] })).toEqual([]);
  });

  it('finds nothing in a template that does not parse (its render error says why)', () => {
    expect(names('{{ plan', '<p>{% if %}</p>', {})).toEqual([]);
  });
});
