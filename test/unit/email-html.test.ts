import { describe, expect, it } from 'vitest';
import { addFooter, addOpenPixel, decodeEntities, escapeHtml, rewriteLinks } from '../../src/domain/email-html.js';
import {
  footerHtml,
  formatDate,
  LOCALES,
  localeFromAcceptLanguage,
  localeOf,
  stringsFor,
} from '../../src/domain/subscriber-i18n.js';

const track = (url: string) => `https://t.example/c?u=${encodeURIComponent(url)}&x=1`;
const never = () => false;

describe('addOpenPixel', () => {
  it('puts a 1x1 image right before </body>', () => {
    const out = addOpenPixel('<html><body><p>Hi</p></body></html>', 'https://t.example/t/open/1/sig');
    expect(out).toMatch(
      /^<html><body><p>Hi<\/p><img src="https:\/\/t\.example\/t\/open\/1\/sig" width="1" height="1" alt=""[^>]*\/><\/body><\/html>$/,
    );
  });

  it('finds an uppercase </BODY>, and the last one', () => {
    const out = addOpenPixel('<BODY>a</BODY>b</Body >', 'https://p');
    expect(out).toBe(`<BODY>a</BODY>b${out.slice(15, out.indexOf('</Body >'))}</Body >`);
    expect(out.indexOf('<img')).toBeGreaterThan(out.indexOf('</BODY>'));
  });

  it('appends to a fragment without a body tag', () => {
    const out = addOpenPixel('<p>Hi</p>', 'https://p');
    expect(out.startsWith('<p>Hi</p><img src="https://p"')).toBe(true);
  });

  it('escapes the URL', () => {
    expect(addOpenPixel('', 'https://p/?a=1&b="2"')).toContain('src="https://p/?a=1&amp;b=&quot;2&quot;"');
  });
});

describe('addFooter', () => {
  it('goes before </body>, or at the end', () => {
    expect(addFooter('<body><p>x</p></body>', '<div>F</div>')).toBe('<body><p>x</p><div>F</div></body>');
    expect(addFooter('<p>x</p>', '<div>F</div>')).toBe('<p>x</p><div>F</div>');
    expect(addFooter('<HTML><BODY>x</BODY></HTML>', '<div>F</div>')).toBe('<HTML><BODY>x<div>F</div></BODY></HTML>');
  });
});

describe('rewriteLinks', () => {
  it('rewrites http and https links in double, single and no quotes', () => {
    const html =
      '<a href="https://a.example/x">A</a> <a href=\'http://b.example/\'>B</a> <a href=https://c.example/?q=1>C</a>';
    const out = rewriteLinks(html, track, never);
    expect(out).toBe(
      `<a href="${escapeHtml(track('https://a.example/x'))}">A</a> ` +
        `<a href="${escapeHtml(track('http://b.example/'))}">B</a> ` +
        `<a href="${escapeHtml(track('https://c.example/?q=1'))}">C</a>`,
    );
  });

  it('handles uppercase tags and attributes, other attributes and line breaks', () => {
    const html =
      '<A CLASS="btn" HREF="HTTPS://x.example/Path" target="_blank">Go</A>\n<a\n  style="color:red"\n  href="https://y.example">Y</a>';
    const out = rewriteLinks(html, (u) => `T(${u})`, never);
    expect(out).toBe(
      '<A CLASS="btn" href="T(HTTPS://x.example/Path)" target="_blank">Go</A>\n<a\n  style="color:red"\n  href="T(https://y.example)">Y</a>',
    );
  });

  it('decodes entities before tracking and escapes the result', () => {
    const seen: string[] = [];
    const out = rewriteLinks(
      '<a href="https://x.example/?a=1&amp;b=2&#38;c=3">x</a>',
      (u) => {
        seen.push(u);
        return `https://t/?u=${u}`;
      },
      never,
    );
    expect(seen).toEqual(['https://x.example/?a=1&b=2&c=3']);
    expect(out).toBe('<a href="https://t/?u=https://x.example/?a=1&amp;b=2&amp;c=3">x</a>');
  });

  it('trims whitespace around the URL', () => {
    const seen: string[] = [];
    rewriteLinks(
      '<a href="  https://x.example/ ">x</a>',
      (u) => {
        seen.push(u);
        return u;
      },
      never,
    );
    expect(seen).toEqual(['https://x.example/']);
  });

  it('leaves mailto:, tel:, fragments, relative and javascript: links alone', () => {
    const html =
      '<a href="mailto:a@b.example">m</a><a href="tel:+123">t</a><a href="#top">f</a>' +
      '<a href="/relative">r</a><a href="javascript:alert(1)">j</a><a name="anchor">n</a><a>empty</a><a href>bare</a>';
    expect(rewriteLinks(html, track, never)).toBe(html);
  });

  it('keeps the URLs keep() asks for', () => {
    const html = '<a href="https://pub.example/unsubscribe/tok">u</a><a href="https://shop.example/">s</a>';
    const out = rewriteLinks(
      html,
      (u) => `T(${u})`,
      (u) => u.startsWith('https://pub.example/'),
    );
    expect(out).toBe('<a href="https://pub.example/unsubscribe/tok">u</a><a href="T(https://shop.example/)">s</a>');
  });

  it('is not fooled by > inside attribute values or href inside another attribute', () => {
    const html = '<a title="a > b" data-x="href=\'https://no.example\'" href="https://yes.example">x</a>';
    const out = rewriteLinks(html, (u) => `T(${u})`, never);
    expect(out).toBe('<a title="a > b" data-x="href=\'https://no.example\'" href="T(https://yes.example)">x</a>');
  });

  it('ignores tags that only start with a: <abbr>, <area>, <address>', () => {
    const html = '<abbr href="https://x.example">a</abbr><area href="https://x.example"><address>x</address>';
    expect(rewriteLinks(html, track, never)).toBe(html);
  });

  it('rewrites many links and leaves comments alone', () => {
    const links = Array.from({ length: 50 }, (_, i) => `<a href="https://x.example/${i}">${i}</a>`).join('<br>');
    const html = `<body><!-- <a href="https://commented.example">c</a> -->${links}</body>`;
    const seen: string[] = [];
    const out = rewriteLinks(
      html,
      (u) => {
        seen.push(u);
        return 'T';
      },
      never,
    );
    expect(seen).toHaveLength(50);
    expect(seen[49]).toBe('https://x.example/49');
    expect(out).toContain('<!-- <a href="https://commented.example">c</a> -->');
    expect(out.match(/href="T"/g)).toHaveLength(50);
  });

  it('only touches the first href, as browsers do', () => {
    expect(rewriteLinks('<a href="https://a.example" href="https://b.example">x</a>', () => 'T', never)).toBe(
      '<a href="T" href="https://b.example">x</a>',
    );
  });
});

describe('entities', () => {
  it('decodes named and numeric references and leaves unknown ones', () => {
    expect(decodeEntities('&amp;&lt;&gt;&quot;&#39;&#x27;&AMP;&copy;&#0;')).toBe(`&<>"''&&copy;&#0;`);
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('subscriber locales', () => {
  it.each([
    ['de', 'de'],
    ['de-AT', 'de'],
    ['pt_BR', 'pt'],
    ['FR', 'fr'],
    ['fr-CA', 'fr'],
    ['es-419', 'es'],
    ['en-GB', 'en'],
    ['it', 'en'],
    ['', 'en'],
    ['  de ', 'de'],
  ])('%j reads as %s', (locale, expected) => {
    expect(localeOf({ locale })).toBe(expected);
  });

  it('falls back to English without a string locale', () => {
    expect(localeOf({})).toBe('en');
    expect(localeOf({ locale: 42 })).toBe('en');
    expect(localeOf({ locale: null })).toBe('en');
  });

  it('reads Accept-Language by quality', () => {
    expect(localeFromAcceptLanguage('it-IT,it;q=0.9,de;q=0.8,en;q=0.5')).toBe('de');
    expect(localeFromAcceptLanguage('pt-BR')).toBe('pt');
    expect(localeFromAcceptLanguage('xx, yy;q=0.1')).toBe('en');
    expect(localeFromAcceptLanguage(undefined)).toBe('en');
  });

  it('has every string in every language', () => {
    const keys = Object.keys(stringsFor('en')).sort();
    for (const locale of LOCALES) {
      const strings = stringsFor(locale);
      expect(Object.keys(strings).sort()).toEqual(keys);
      for (const value of Object.values(strings)) expect(value.trim().length).toBeGreaterThan(0);
    }
    expect(stringsFor('de').unsubscribe).toBe('Abmelden');
  });

  it('formats dates per language', () => {
    const date = new Date('2025-03-14T10:00:00Z');
    expect(formatDate('en', date)).toBe('March 14, 2025');
    expect(formatDate('de', date)).toBe('14. März 2025');
  });
});

describe('footerHtml', () => {
  it('links to unsubscribe and manage, in the language, with escaped URLs', () => {
    const html = footerHtml('de', {
      unsubscribeUrl: 'https://p.example/unsubscribe/a.b?x=1&y="2"',
      manageUrl: 'https://p.example/manage/a.b',
    });
    expect(html).toContain('href="https://p.example/unsubscribe/a.b?x=1&amp;y=&quot;2&quot;"');
    expect(html).toContain('>Abmelden</a>');
    expect(html).toContain('href="https://p.example/manage/a.b"');
    expect(html).toContain('>Einstellungen verwalten</a>');
    expect(html).not.toMatch(/<script|<link|<style/i);
  });

  it('survives rewriteLinks with keep() for its own links', () => {
    const footer = footerHtml('en', {
      unsubscribeUrl: 'https://p.example/unsubscribe/t',
      manageUrl: 'https://p.example/manage/t',
    });
    const out = rewriteLinks(
      addFooter('<body></body>', footer),
      () => 'T',
      (u) => u.startsWith('https://p.example/'),
    );
    expect(out).toContain('href="https://p.example/unsubscribe/t"');
    expect(out).toContain('>Unsubscribe</a>');
    expect(out).toContain('>Manage preferences</a>');
  });
});
