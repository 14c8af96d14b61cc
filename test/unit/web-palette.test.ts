import { describe, expect, it } from 'vitest';
import * as palette from '../../web/src/shell/palette/palette-items.js';

const PAGES = [
  { to: '/contacts', label: 'Contacts', group: 'Audience', description: 'People' },
  { to: '/templates', label: 'Templates', group: 'Messaging', description: 'Reusable emails' },
  { to: '/emails', label: 'Emails', group: 'Messaging', description: 'Every message' },
];

describe('the command palette', () => {
  it('offers every page for an empty query, and the pages whose name holds every word typed', () => {
    expect(palette.matchingPages('', PAGES).map((p) => p.label)).toEqual(['Contacts', 'Templates', 'Emails']);
    expect(palette.matchingPages('  TEM ', PAGES).map((p) => p.to)).toEqual(['/templates']);
    expect(palette.matchingPages('con acts', PAGES).map((p) => p.to)).toEqual(['/contacts']);
    expect(palette.matchingPages('nothing', PAGES)).toEqual([]);
  });

  it('finds a group’s pages by its name, each page with its group and description', () => {
    expect(palette.matchingPages('messaging', PAGES).map((p) => [p.label, p.group, p.hint])).toEqual([
      ['Templates', 'Messaging', 'Reusable emails'],
      ['Emails', 'Messaging', 'Every message'],
    ]);
  });

  it('sections the results by consecutive group, in their order', () => {
    const items = [
      ...palette.matchingPages('', PAGES),
      { id: 'c1', group: 'Contacts', label: 'ada@example.com', to: '/contacts/c1' },
    ];
    expect(palette.groupItems(items).map((g) => [g.group, g.items.map((i) => i.label)])).toEqual([
      ['Audience', ['Contacts']],
      ['Messaging', ['Templates', 'Emails']],
      ['Contacts', ['ada@example.com']],
    ]);
  });

  it('asks the server only from two characters on', () => {
    expect(palette.searchTerm(' a ')).toBeNull();
    expect(palette.searchTerm(' ad ')).toBe('ad');
  });

  it('moves the active option with the arrows, wrapping around', () => {
    const items = palette.matchingPages('', PAGES);
    const [contacts, templates, emails] = items.map((i) => i.id);
    expect(palette.moveActive(items, null, 1)).toBe(contacts);
    expect(palette.moveActive(items, null, -1)).toBe(emails);
    expect(palette.moveActive(items, contacts!, 1)).toBe(templates);
    expect(palette.moveActive(items, emails!, 1)).toBe(contacts);
    expect(palette.moveActive(items, contacts!, -1)).toBe(emails);
    expect(palette.moveActive([], null, 1)).toBeNull();
  });

  it('opens on Ctrl-K and ⌘-K only', () => {
    const key = { key: 'k', ctrlKey: false, metaKey: false, altKey: false, shiftKey: false };
    expect(palette.opensPalette({ ...key, ctrlKey: true })).toBe(true);
    expect(palette.opensPalette({ ...key, metaKey: true, key: 'K' })).toBe(true);
    expect(palette.opensPalette(key)).toBe(false);
    expect(palette.opensPalette({ ...key, ctrlKey: true, shiftKey: true })).toBe(false);
  });
});
