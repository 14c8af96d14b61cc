import { createHash, randomInt } from 'node:crypto';

/**
 * Recovery codes: ten, each usable once, for a user who lost their authenticator. Each is 50 random
 * bits in two groups of five letters and digits without look-alikes (no 0/O, 1/I/L); a fast hash is
 * enough to store them, since they are random and long, not chosen by people like passwords.
 */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const GROUP = 5;

const group = () => Array.from({ length: GROUP }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${group()}-${group()}`);
}

/** The code as stored: upper case, without the dash and spaces people may type or leave out. */
export function normalizeRecoveryCode(code: string): string | null {
  const plain = code.replace(/[\s-]/g, '').toUpperCase();
  return plain.length === GROUP * 2 && [...plain].every((c) => ALPHABET.includes(c)) ? plain : null;
}

export function hashRecoveryCode(normalized: string): string {
  return createHash('sha256').update(normalized).digest('hex');
}
