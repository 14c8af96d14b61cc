import { EmailNode } from '@react-email/editor/core';
import type { CSSProperties } from 'react';
import {
  type Comparison,
  type ConditionAttrs,
  conditionEnd,
  conditionLabel,
  conditionLiquid,
  type FieldAttrs,
  fieldLiquid,
  liquidToken,
} from './liquid.js';

/**
 * The blocks the library lacks, each a small node that prints email-safe HTML: a contact field and
 * a condition (Liquid nodes of their own, printed as tokens that `restoreLiquid` turns back into
 * Liquid), a spacer, social links and the footer with the unsubscribe link.
 */

type Alignment = 'left' | 'center' | 'right';
const alignAttr = { alignment: { default: 'center' as Alignment } };
const attrsOf = (el: HTMLElement, names: string[]) =>
  Object.fromEntries(names.map((n) => [n, el.getAttribute(`data-${n}`) ?? undefined]));

/** `{{ field ?? "fallback" }}`: an atom shown as a chip with the field's name. */
export const LiquidField = EmailNode.create({
  name: 'liquidField',
  group: 'inline',
  inline: true,
  atom: true,
  selectable: true,
  addAttributes() {
    return { field: { default: '' }, fallback: { default: null } };
  },
  parseHTML() {
    return [{ tag: 'span[data-liquid-field]', getAttrs: (el) => attrsOf(el as HTMLElement, ['field', 'fallback']) }];
  },
  renderHTML({ node }) {
    const { field, fallback } = node.attrs as FieldAttrs;
    return [
      'span',
      {
        'data-liquid-field': '',
        'data-field': field,
        ...(fallback ? { 'data-fallback': fallback } : {}),
        class: 'liquid-chip',
        title: fieldLiquid({ field, fallback }),
      },
      fallback ? `${field} · ${fallback}` : field,
    ];
  },
  renderText({ node }) {
    return fieldLiquid(node.attrs as FieldAttrs);
  },
  renderToReactEmail({ node }) {
    return liquidToken(fieldLiquid(node.attrs as FieldAttrs));
  },
});

/** `{% if … %}` blocks `{% endif %}`: what it holds is sent only to contacts matching the condition. */
export const LiquidCondition = EmailNode.create({
  name: 'liquidCondition',
  group: 'block',
  content: 'block+',
  defining: true,
  addAttributes() {
    return {
      field: { default: '' },
      comparison: { default: 'present' as Comparison },
      value: { default: '' },
      // The field's type when chosen: numbers and booleans are compared as such.
      type: { default: null },
    };
  },
  parseHTML() {
    return [
      {
        tag: 'div[data-liquid-condition]',
        getAttrs: (el) => attrsOf(el as HTMLElement, ['field', 'comparison', 'value']),
      },
    ];
  },
  renderHTML({ node }) {
    const attrs = node.attrs as ConditionAttrs;
    return [
      'div',
      {
        'data-liquid-condition': '',
        'data-field': attrs.field,
        'data-comparison': attrs.comparison,
        'data-value': attrs.value,
        'data-label': conditionLabel(attrs),
        class: 'liquid-condition',
      },
      0,
    ];
  },
  renderToReactEmail({ node, children }) {
    const attrs = node.attrs as ConditionAttrs & { type?: string };
    return (
      <>
        {liquidToken(conditionLiquid(attrs, attrs.type))}
        {children}
        {liquidToken(conditionEnd(attrs.comparison))}
      </>
    );
  },
});

/** Empty vertical space of a chosen height, as a table cell (margins are unreliable in mail). */
export const Spacer = EmailNode.create({
  name: 'spacer',
  group: 'block',
  atom: true,
  addAttributes() {
    return { height: { default: 24 } };
  },
  parseHTML() {
    return [{ tag: 'div[data-spacer]', getAttrs: (el) => ({ height: Number((el as HTMLElement).dataset.spacer) }) }];
  },
  renderHTML({ node }) {
    const height = Number(node.attrs.height);
    return ['div', { 'data-spacer': String(height), class: 'block-spacer', style: `height:${height}px` }];
  },
  renderToReactEmail({ node }) {
    const height = Number(node.attrs?.height ?? 24);
    return (
      <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} border={0}>
        <tbody>
          <tr>
            <td height={height} style={{ height, lineHeight: `${height}px`, fontSize: 0 }}>
              &nbsp;
            </td>
          </tr>
        </tbody>
      </table>
    );
  },
});

export const SOCIAL_NETWORKS = ['Facebook', 'Instagram', 'LinkedIn', 'X', 'YouTube'] as const;
export type SocialLinksAttrs = { links: Record<string, string>; alignment: Alignment };

const linkStyle: CSSProperties = { color: '#2563eb', textDecoration: 'underline' };

/** The networks with an address, as text links in a row. */
export const SocialLinks = EmailNode.create({
  name: 'socialLinks',
  group: 'block',
  atom: true,
  addAttributes() {
    return { links: { default: {} as Record<string, string> }, ...alignAttr };
  },
  parseHTML() {
    return [{ tag: 'div[data-social-links]' }];
  },
  renderHTML({ node }) {
    const { links, alignment } = node.attrs as SocialLinksAttrs;
    const named = SOCIAL_NETWORKS.filter((n) => links[n]);
    return [
      'div',
      { 'data-social-links': '', class: `block-social align-${alignment}` },
      named.length ? named.join(' · ') : 'Social links (add the addresses in the block’s settings)',
    ];
  },
  renderToReactEmail({ node }) {
    const { links, alignment } = node.attrs as SocialLinksAttrs;
    const named = SOCIAL_NETWORKS.filter((n) => links[n]);
    if (!named.length) return null;
    return (
      <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} border={0}>
        <tbody>
          <tr>
            <td align={alignment} style={{ padding: '8px 0', fontSize: 14 }}>
              {named.map((n, i) => (
                <span key={n}>
                  {i > 0 ? ' · ' : ''}
                  <a href={links[n]} style={linkStyle}>
                    {n}
                  </a>
                </span>
              ))}
            </td>
          </tr>
        </tbody>
      </table>
    );
  },
});

/** Small print (who sends, why) and the links to unsubscribe and manage preferences. */
export const EmailFooter = EmailNode.create({
  name: 'emailFooter',
  group: 'block',
  content: 'inline*',
  defining: true,
  addAttributes() {
    return alignAttr;
  },
  parseHTML() {
    return [{ tag: 'div[data-email-footer]' }];
  },
  renderHTML({ node }) {
    // The links are drawn after the text (block-editor.css): they are not the writer's to edit.
    return ['div', { 'data-email-footer': '', class: `block-footer align-${node.attrs.alignment}` }, 0];
  },
  renderToReactEmail({ node, children }) {
    const align = (node.attrs?.alignment ?? 'center') as Alignment;
    const small: CSSProperties = { fontSize: 12, lineHeight: '18px', color: '#6b7280', margin: '4px 0' };
    return (
      <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} border={0}>
        <tbody>
          <tr>
            <td align={align} style={{ padding: '16px 0', textAlign: align }}>
              <p style={small}>{children}</p>
              <p style={small}>
                <a href={liquidToken('{{ unsubscribeUrl }}')} style={{ ...linkStyle, color: '#6b7280' }}>
                  Unsubscribe
                </a>
                {' · '}
                <a href={liquidToken('{{ manageUrl }}')} style={{ ...linkStyle, color: '#6b7280' }}>
                  Manage preferences
                </a>
              </p>
            </td>
          </tr>
        </tbody>
      </table>
    );
  },
});

export const CUSTOM_BLOCKS = [LiquidField, LiquidCondition, Spacer, SocialLinks, EmailFooter];
