import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, keyKindOf } from '../../src/domain/api-keys.js';
import { isReservedEventName } from '../../src/domain/event-names.js';

describe('API keys', () => {
  it('carry their kind in the prefix and 256 bits of randomness', () => {
    const pk = generateKey('public');
    const sk = generateKey('secret');
    expect(pk).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(sk).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(keyKindOf(pk)).toBe('public');
    expect(keyKindOf(sk)).toBe('secret');
    expect(keyKindOf('xx_abc')).toBeNull();
    expect(new Set(Array.from({ length: 100 }, () => generateKey('secret'))).size).toBe(100);
  });

  it('are stored as a hash that does not contain the key', () => {
    const sk = generateKey('secret');
    expect(hashKey(sk)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(sk)).toBe(hashKey(sk));
    expect(hashKey(sk)).not.toContain(sk.slice(3, 13));
  });
});

describe('isReservedEventName', () => {
  it.each([
    'email.opened',
    'email.x',
    'contact.subscribed',
    'contact.unsubscribed',
    'segment.vip.entry',
    'segment.a-b.exit',
  ])('%s is reserved', (name) => expect(isReservedEventName(name)).toBe(true));
  it.each(['signup', 'emails.sent', 'contact.created', 'segment.vip', 'segment.vip.entered', 'Email.opened'])(
    '%s is free',
    (name) => expect(isReservedEventName(name)).toBe(false),
  );
});
