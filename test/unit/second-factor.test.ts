import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { hashRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from '../../src/domain/recovery-codes.js';
import { newTotpSecret, totpStep, totpUri } from '../../src/domain/totp.js';
import { describeDevice } from '../../src/domain/user-agent.js';

describe('TOTP codes', () => {
  const secret = newTotpSecret();
  const at = new Date('2026-11-27T12:00:10Z');
  const codeAt = (date: Date) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: date.getTime() });
  const step = Math.floor(at.getTime() / 30_000);

  it('takes the current code and those of the step before and after, naming each code’s step', () => {
    expect(totpStep(secret, codeAt(at), at)).toBe(step);
    expect(totpStep(secret, codeAt(new Date(at.getTime() - 30_000)), at)).toBe(step - 1);
    expect(totpStep(secret, codeAt(new Date(at.getTime() + 30_000)), at)).toBe(step + 1);
  });

  it('refuses codes two steps away, wrong digits and anything not six digits', () => {
    expect(totpStep(secret, codeAt(new Date(at.getTime() - 90_000)), at)).toBeNull();
    const code = codeAt(at);
    expect(totpStep(secret, String((Number(code) + 1) % 1_000_000).padStart(6, '0'), at)).toBeNull();
    for (const bad of ['', '12345', '1234567', 'abcdef', `${code}0`]) expect(totpStep(secret, bad, at)).toBeNull();
    // The spaces and dashes apps show between the digits are allowed.
    expect(totpStep(secret, `${code.slice(0, 3)} ${code.slice(3)}`, at)).toBe(step);
  });

  it('makes 160-bit secrets and otpauth addresses that name the account and the issuer', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, 'ana@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Postbox:ana@example.com');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
  });
});

describe('recovery codes', () => {
  it('makes ten different codes that read back as themselves however they are typed', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}$/);
      const plain = normalizeRecoveryCode(code)!;
      expect(normalizeRecoveryCode(code.toLowerCase().replace('-', ' '))).toBe(plain);
      expect(hashRecoveryCode(plain)).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('refuses what cannot be a code (wrong length, look-alike letters)', () => {
    for (const bad of ['', 'ABCDE', 'ABCDE-ABCDEF', 'ABCDE-0BCDE', 'ABCDE-IBCDE']) {
      expect(normalizeRecoveryCode(bad)).toBeNull();
    }
  });
});

describe('devices named from the user agent', () => {
  it.each([
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0', 'Firefox on Windows'],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
      'Safari on macOS',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/140.0 Mobile/15E148 Safari/604.1',
      'Chrome on iOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36 EdgA/140.0',
      'Edge on Android',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0 Safari/537.36',
      'Chrome on Linux',
    ],
    ['curl/8.5.0', 'curl'],
    ['', 'Unknown browser'],
  ])('%s → %s', (ua, device) => {
    expect(describeDevice(ua)).toBe(device);
  });
});
