import { describe, expect, it } from 'vitest';
import * as view from '../../web/src/pages/inbound/inbound-view.js';

describe('the inbound list’s place', () => {
  it('keeps the cursor in the URL and the earlier cursors in the history state', () => {
    expect(view.parseInboundCursor('')).toBeNull();
    expect(view.parseInboundCursor(view.inboundQuery('abc='))).toBe('abc=');
    expect(view.inboundQuery(null)).toBe('');
    expect(view.readTrail({ trail: [null, 'a'] })).toEqual([null, 'a']);
    expect(view.readTrail({ trail: [1] })).toEqual([]);
    expect(view.readTrail(null)).toEqual([]);
  });

  it('goes forward and back through pages', () => {
    const first = { cursor: null, trail: [] };
    const second = view.nextInboundPage(first, 'c2');
    const third = view.nextInboundPage(second, 'c3');
    expect(third).toEqual({ cursor: 'c3', trail: [null, 'c2'] });
    expect(view.inboundPageNumber(third)).toBe(3);
    expect(view.previousInboundPage(third)).toEqual(second);
    expect(view.previousInboundPage(second)).toEqual(first);
    // A pasted link has no trail: its number is unknown and "previous" is the first page.
    expect(view.inboundPageNumber({ cursor: 'c9', trail: [] })).toBeNull();
    expect(view.previousInboundPage({ cursor: 'c9', trail: [] })).toEqual(first);
  });
});

describe('a received message', () => {
  it('names its sender', () => {
    expect(view.sender({ from: 'ada@example.com', fromName: 'Ada Lovelace' })).toBe('Ada Lovelace <ada@example.com>');
    expect(view.sender({ from: 'ada@example.com', fromName: null })).toBe('ada@example.com');
  });

  it('sizes attachments and shortens text', () => {
    expect(view.formatSize(512)).toBe('512 B');
    expect(view.formatSize(2048)).toBe('2.0 KB');
    expect(view.formatSize(300 * 1024)).toBe('300 KB');
    expect(view.formatSize(3 * 1024 * 1024)).toBe('3.0 MB');
    expect(view.snippet('  Hello\n\n  there  ')).toBe('Hello there');
    expect(view.snippet('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(view.snippet(null)).toBe('');
  });

  it('puts its HTML in a document whose policy loads no remote images until asked', () => {
    const html = '<p>Hi</p><img src="https://tracker.example/p.gif">';
    const closed = view.inboundDocument(html, false);
    expect(closed.indexOf('Content-Security-Policy')).toBeLessThan(closed.indexOf('<p>Hi</p>'));
    expect(closed).toContain("default-src 'none'; img-src data: cid:;");
    expect(closed).not.toContain('img-src data: cid: http: https:');
    expect(view.inboundDocument(html, true)).toContain('img-src data: cid: http: https:');
    expect(closed).toContain('<body><p>Hi</p><img src="https://tracker.example/p.gif"></body>');
  });

  it('knows when it has remote images to offer', () => {
    expect(view.hasRemoteImages('<img src="https://x.example/a.png">')).toBe(true);
    expect(view.hasRemoteImages("<IMG alt='' SRC='//x.example/a.png'>")).toBe(true);
    expect(view.hasRemoteImages('<img src="cid:logo">')).toBe(false);
    expect(view.hasRemoteImages('<img src="data:image/png;base64,AAAA">')).toBe(false);
    expect(view.hasRemoteImages('<a href="https://x.example">x</a>')).toBe(false);
  });
});
