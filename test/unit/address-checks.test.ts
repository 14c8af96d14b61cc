import { describe, expect, it } from 'vitest';
import {
  type DnsFindings,
  evaluateAddress,
  isAliasDomain,
  isDisposableDomain,
  isFreeProviderDomain,
  isPlusAddressed,
  registrableDomain,
  splitAddress,
  suggestEmail,
} from '../../src/domain/address-checks.js';
import { NO_RECORDS, verdict } from '../support/verdicts.js';

const MX = [{ exchange: 'mx1.acme-widgets.dev', priority: 10 }];
/** Every DNS check answered positively. */
const healthy: DnsFindings = {
  ns: { ok: true, records: ['ns1.acme-widgets.dev'] },
  mx: { ok: true, records: MX },
  addresses: { ok: true, records: ['192.0.2.10'] },
};
const empty: DnsFindings = {
  ns: { ok: true, records: [] },
  mx: { ok: true, records: [] },
  addresses: { ok: true, records: [] },
};
const refused = { ok: false as const, error: 'ECONNREFUSED' };
const ADDRESS = 'ann@acme-widgets.dev';
/** Healthy findings but for the MX answer. */
const withMx = (records: { exchange: string; priority: number }[]): DnsFindings => ({
  ...healthy,
  mx: { ok: true, records },
});

describe('address parts', () => {
  it('splits at the last @', () => {
    expect(splitAddress('ann.lee+news@mail.acme-widgets.dev')).toEqual({
      local: 'ann.lee+news',
      domain: 'mail.acme-widgets.dev',
    });
  });

  it('finds plus-addressing anywhere in the local part', () => {
    expect(isPlusAddressed('ann+news')).toBe(true);
    expect(isPlusAddressed('+ann')).toBe(true);
    expect(isPlusAddressed('ann.lee')).toBe(false);
    expect(isPlusAddressed('ann-lee')).toBe(false);
  });

  it('takes the registrable domain by the two- or three-label rule', () => {
    expect(registrableDomain('example.com')).toBe('example.com');
    expect(registrableDomain('mail.example.com')).toBe('example.com');
    expect(registrableDomain('a.b.example.com')).toBe('example.com');
    expect(registrableDomain('mail.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('x.example.com.au')).toBe('example.com.au');
    // "co" under a three-letter TLD is an ordinary name, not a second level.
    expect(registrableDomain('mail.co.dev')).toBe('co.dev');
  });
});

describe('lists', () => {
  it('knows disposable domains and their subdomains', () => {
    for (const d of ['mailinator.com', 'yopmail.com', 'inbox.mailinator.com'])
      expect(isDisposableDomain(d), d).toBe(true);
    // mailinator.com.evil.dev is not under mailinator.com.
    for (const d of ['gmail.com', 'acme-widgets.dev', 'mailinator.com.acme-widgets.dev']) {
      expect(isDisposableDomain(d), d).toBe(false);
    }
  });

  it('reads the wildcard list as "every subdomain of"', () => {
    // anonaddy.com is only in wildcard.json: its subdomains are disposable, the apex is not.
    expect(isDisposableDomain('someone.anonaddy.com')).toBe(true);
    expect(isDisposableDomain('anonaddy.com')).toBe(false);
  });

  it('knows alias and forwarding services, subdomains included', () => {
    for (const d of [
      'privaterelay.appleid.com',
      'duck.com',
      'simplelogin.com',
      'simplelogin.co',
      'simplelogin.fr',
      'anonaddy.me',
      'addy.io',
      'mozmail.com',
      'relay.firefox.com',
      '33mail.com',
      'erine.email',
    ]) {
      expect(isAliasDomain(d), d).toBe(true);
    }
    expect(isAliasDomain('ann.anonaddy.com')).toBe(true);
    for (const d of ['appleid.com', 'gmail.com', 'duck.com.acme-widgets.dev']) expect(isAliasDomain(d), d).toBe(false);
  });

  it('knows free providers by exact domain', () => {
    for (const d of ['gmail.com', 'yahoo.co.uk']) expect(isFreeProviderDomain(d), d).toBe(true);
    for (const d of ['acme-widgets.dev', 'mail.gmail.com']) expect(isFreeProviderDomain(d), d).toBe(false);
  });
});

describe('typo suggestions', () => {
  it('suggests the provider a misspelt domain was meant to be', () => {
    expect(suggestEmail('ann@gmial.com')).toBe('ann@gmail.com');
    expect(suggestEmail('ann+news@hotmial.com')).toBe('ann+news@hotmail.com');
    expect(suggestEmail('ann@gmail.con')).toBe('ann@gmail.com');
    expect(suggestEmail('ann@yaho.com')).toBe('ann@yahoo.com');
  });

  it.each([
    ['leaves correct and unknown domains alone', 'gmail.com acme-widgets.dev mail.acme-widgets.dev example.co.uk'],
    // The spell checker alone would say mail.com and mail.me.
    ['never calls a real service a misspelling of another', '33mail.com slmail.me mail.com'],
  ])('%s', (_, domains) => {
    for (const domain of domains.split(' ')) expect(suggestEmail(`ann@${domain}`), domain).toBeUndefined();
  });
});

describe('evaluateAddress', () => {
  it('accepts a deliverable company address with no reasons', () => {
    expect(evaluateAddress('ann@acme-widgets.dev', healthy)).toEqual(verdict('ann@acme-widgets.dev'));
  });

  it('lists every negative finding of a domain with no records', () => {
    expect(evaluateAddress('ann@acme-widgets.dev', empty)).toEqual(verdict('ann@acme-widgets.dev', NO_RECORDS));
  });

  it('does not count an A record as an implicit MX', () => {
    expect(evaluateAddress(ADDRESS, withMx([]))).toEqual(
      verdict(ADDRESS, { valid: false, hasMxRecords: false, reasons: ['Domain has no MX records'] }),
    );
  });

  it('treats a null MX as a domain that accepts no mail', () => {
    expect(evaluateAddress(ADDRESS, withMx([{ exchange: '', priority: 0 }]))).toEqual(
      verdict(ADDRESS, { valid: false, hasMxRecords: false, reasons: ['Domain accepts no email (null MX record)'] }),
    );
  });

  it('finds the domain through its registrable parent', () => {
    const r = evaluateAddress('ann@mail.acme-widgets.dev', {
      ...healthy,
      ns: { ok: true, records: [] },
      parentNs: { ok: true, records: ['ns1'] },
    });
    expect(r.domainExists).toBe(true);
    expect(r.valid).toBe(true);
    expect(r.reasons).toEqual([]);
    const none = evaluateAddress('ann@mail.acme-widgets.dev', {
      ...healthy,
      ns: { ok: true, records: [] },
      parentNs: { ok: true, records: [] },
    });
    expect(none.domainExists).toBe(false);
    expect(none.reasons).toEqual(['Domain does not exist (no NS records)']);
  });

  it('makes a disposable address invalid even with MX records, and not personal', () => {
    const r = evaluateAddress('ann@mailinator.com', healthy);
    expect(r.valid).toBe(false);
    expect(r.isDisposable).toBe(true);
    expect(r.isPersonalEmail).toBe(false);
    expect(r.reasons).toEqual(['Disposable email domain']);
  });

  it('flags an alias service but keeps it valid, and personal', () => {
    const r = evaluateAddress('x7k2@privaterelay.appleid.com', healthy);
    expect(r).toMatchObject({ valid: true, isAlias: true, isDisposable: false, isPersonalEmail: true });
    expect(r.reasons).toEqual(['Alias or forwarding email service']);
    // duck.com is not on the free-provider list; being an alias service makes it personal.
    expect(evaluateAddress('ann@duck.com', healthy)).toMatchObject({ isAlias: true, isPersonalEmail: true });
  });

  it('keeps an address that is both alias and disposable invalid and not personal', () => {
    const r = evaluateAddress('ann@33mail.com', healthy);
    expect(r).toMatchObject({ valid: false, isAlias: true, isDisposable: true, isPersonalEmail: false, isTypo: false });
    expect(r.reasons).toEqual(['Disposable email domain', 'Alias or forwarding email service']);
  });

  it('marks free providers as personal and plus-addressing as neutral', () => {
    const r = evaluateAddress('ann+news@gmail.com', healthy);
    expect(r).toMatchObject({ valid: true, isPersonalEmail: true, isPlusAddressed: true, isTypo: false, reasons: [] });
    expect(r).not.toHaveProperty('suggestedEmail');
  });

  it('reports a typo with its suggestion', () => {
    const r = evaluateAddress('ann@gmial.com', empty);
    expect(r.isTypo).toBe(true);
    expect(r.suggestedEmail).toBe('ann@gmail.com');
    expect(r.reasons[0]).toBe('Possible typo: did you mean ann@gmail.com?');
    // A typo alone does not make a deliverable address invalid.
    expect(evaluateAddress('ann@gmial.com', healthy)).toMatchObject({
      valid: true,
      isTypo: true,
      reasons: ['Possible typo: did you mean ann@gmail.com?'],
    });
  });

  it('turns failed lookups into failed checks with reasons', () => {
    const r = evaluateAddress('ann@mail.acme-widgets.dev', {
      ns: refused,
      parentNs: refused,
      mx: { ok: false, error: 'ETIMEOUT' },
      addresses: refused,
    });
    expect(r).toMatchObject({ valid: false, domainExists: false, hasMxRecords: false, hasWebsite: false });
    expect(r.reasons).toEqual([
      'DNS lookup of NS records failed (ECONNREFUSED)',
      'DNS lookup of NS records of acme-widgets.dev failed (ECONNREFUSED)',
      'DNS lookup of MX records failed (ETIMEOUT)',
      'DNS lookup of A/AAAA records failed (ECONNREFUSED)',
    ]);
  });

  it('does not report an NS failure when the parent answered', () => {
    const r = evaluateAddress('ann@mail.acme-widgets.dev', {
      ...healthy,
      ns: refused,
      parentNs: { ok: true, records: ['ns1'] },
    });
    expect(r.domainExists).toBe(true);
    expect(r.reasons).toEqual([]);
  });
});
