import { describe, expect, it } from 'vitest';
import {
  blockSource,
  conditionEnd,
  conditionLabel,
  conditionLiquid,
  fieldExpression,
  fieldLiquid,
  hashBody,
  isStale,
  liquidToken,
  protectLiquid,
  protectText,
  readBlockSource,
  restoreLiquid,
} from '../../web/src/components/email-editor/liquid.js';

/** What React does to text and attribute values: the escaping that breaks raw Liquid. */
const escapeLikeReact = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

describe('Liquid through the email renderer', () => {
  it('survives escaping as a token and comes back exactly', () => {
    const liquid = '{{ firstName ?? "friend" }}';
    const token = liquidToken(liquid);
    expect(token).toMatch(/^@@liquid:[A-Za-z0-9_-]+@@$/);
    expect(escapeLikeReact(token)).toBe(token);
    expect(restoreLiquid(`<p>Hello ${escapeLikeReact(token)}!</p>`)).toBe('<p>Hello {{ firstName ?? "friend" }}!</p>');
  });

  it('keeps any text, including quotes and characters beyond ASCII', () => {
    for (const liquid of ['{% if plan == "pro" %}', "{{ city ?? 'Zürich – ☀' }}", '{% endif %}']) {
      expect(restoreLiquid(liquidToken(liquid))).toBe(liquid);
    }
  });

  it('protects Liquid typed in text, in links and in nested attributes, and nothing else', () => {
    const doc = {
      type: 'doc',
      content: [
        {
          type: 'paragraph',
          content: [
            {
              type: 'text',
              text: 'Hi {{ name ?? "you" }} & welcome',
              marks: [{ type: 'link', attrs: { href: 'https://x.test/?u={{ id }}' } }],
            },
          ],
        },
        { type: 'button', attrs: { href: 'https://x.test/?u={{ id }}', alignment: 'center', level: 2 } },
        { type: 'socialLinks', attrs: { links: { X: 'https://x.test/{{ handle }}' } } },
      ],
    };
    const protectedDoc = protectLiquid(doc);
    const serialized = JSON.stringify(protectedDoc);
    expect(serialized).not.toContain('{{');
    expect(serialized).toContain('& welcome');
    expect(protectedDoc.content![1]!.attrs).toMatchObject({ alignment: 'center', level: 2 });
    // What the renderer would print, escaped, turns back into the Liquid as typed.
    const link = protectedDoc.content![0]!.content![0]!.marks![0]!.attrs!.href as string;
    expect(restoreLiquid(`<a href="${escapeLikeReact(link)}">`)).toBe('<a href="https://x.test/?u={{ id }}">');
    const social = (protectedDoc.content![2]!.attrs!.links as Record<string, string>).X!;
    expect(restoreLiquid(escapeLikeReact(social))).toBe('https://x.test/{{ handle }}');
    expect(restoreLiquid(escapeLikeReact(protectText('a {% if x %}b{% endif %}')))).toBe('a {% if x %}b{% endif %}');
    // The original is left alone.
    expect(JSON.stringify(doc)).toContain('{{ id }}');
  });

  it('drops the empty comments React puts between neighbouring text', () => {
    expect(restoreLiquid(`<p>Hello <!-- -->${liquidToken('{{ a }}')}<!-- -->!</p>`)).toBe('<p>Hello {{ a }}!</p>');
    expect(restoreLiquid('<!--[if mso]>x<![endif]-->')).toBe('<!--[if mso]>x<![endif]-->');
  });
});

describe('field and condition nodes', () => {
  it('name fields as Liquid does, bracketed when not an identifier', () => {
    expect(fieldExpression('firstName')).toBe('firstName');
    expect(fieldExpression('company.name')).toBe('company.name');
    expect(fieldExpression('first name')).toBe('data["first name"]');
  });

  it('print a field with or without a default, quoting the default safely', () => {
    expect(fieldLiquid({ field: 'firstName', fallback: 'friend' })).toBe('{{ firstName ?? "friend" }}');
    expect(fieldLiquid({ field: 'firstName', fallback: null })).toBe('{{ firstName }}');
    expect(fieldLiquid({ field: 'nick', fallback: 'the "best"' })).toBe(`{{ nick ?? 'the "best"' }}`);
    expect(fieldLiquid({ field: 'first name', fallback: 'you' })).toBe('{{ data["first name"] ?? "you" }}');
  });

  it('open and close conditions, comparing numbers and booleans as such', () => {
    expect(conditionLiquid({ field: 'plan', comparison: 'equals', value: 'pro' })).toBe('{% if plan == "pro" %}');
    expect(conditionLiquid({ field: 'age', comparison: 'notEquals', value: '30' }, 'number')).toBe(
      '{% if age != 30 %}',
    );
    expect(conditionLiquid({ field: 'age', comparison: 'equals', value: '30' }, 'string')).toBe('{% if age == "30" %}');
    expect(conditionLiquid({ field: 'vip', comparison: 'equals', value: 'true' }, 'boolean')).toBe(
      '{% if vip == true %}',
    );
    expect(conditionLiquid({ field: 'tags', comparison: 'contains', value: 'new' })).toBe(
      '{% if tags contains "new" %}',
    );
    expect(conditionLiquid({ field: 'plan', comparison: 'present', value: '' })).toBe('{% if plan %}');
    expect(conditionLiquid({ field: 'plan', comparison: 'absent', value: '' })).toBe('{% unless plan %}');
    expect(conditionEnd('absent')).toBe('{% endunless %}');
    expect(conditionEnd('equals')).toBe('{% endif %}');
    expect(conditionLabel({ field: 'plan', comparison: 'equals', value: 'pro' })).toBe('Shown when plan is “pro”');
  });
});

describe('the stored block document', () => {
  const document = { type: 'doc', content: [] };

  it('is stale once the body differs from the HTML it produced', () => {
    const source = blockSource(document, '<p>a</p>');
    expect(isStale(source, '<p>a</p>')).toBe(false);
    expect(isStale(source, '<p>a</p> ')).toBe(true);
    expect(hashBody('<p>a</p>')).toBe(hashBody('<p>a</p>'));
    expect(hashBody('<p>a</p>')).not.toBe(hashBody('<p>b</p>'));
  });

  it('is read only when it is this editor’s document', () => {
    const source = blockSource(document, 'x');
    expect(readBlockSource(JSON.parse(JSON.stringify(source)))).toEqual(source);
    expect(readBlockSource(null)).toBeNull();
    expect(readBlockSource({ ...source, editor: 'maily' })).toBeNull();
    expect(readBlockSource({ ...source, version: 2 })).toBeNull();
    expect(readBlockSource({ ...source, document: { type: 'paragraph' } })).toBeNull();
  });
});
