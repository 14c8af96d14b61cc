import { describe, expect, it } from 'vitest';
import { SCOPES, scopeOfRoute } from '../../src/domain/api-keys.js';
import {
  creatorLabel,
  EMPTY_DRAFT,
  keyBody,
  keyDraftProblems,
  toggleScope,
} from '../../web/src/pages/api-keys/key-form.js';

describe('a new key’s form', () => {
  it('asks for a name and a scope, each next to its field', () => {
    expect(keyDraftProblems(EMPTY_DRAFT)).toEqual({
      name: 'Name the key, after what will use it.',
      scopes: 'Choose at least one thing the key may do.',
    });
    expect(keyDraftProblems({ name: '  Checkout ', scopes: ['send'], expiresInDays: '' })).toEqual({});
    expect(keyDraftProblems({ name: 'x'.repeat(101), scopes: ['send'], expiresInDays: '' }).name).toMatch(/At most/);
  });

  it('keeps the chosen scopes in the order they are offered, each once', () => {
    let draft = toggleScope(EMPTY_DRAFT, 'templates', true, SCOPES);
    draft = toggleScope(draft, 'send', true, SCOPES);
    draft = toggleScope(draft, 'send', true, SCOPES);
    expect(draft.scopes).toEqual(['send', 'templates']);
    expect(toggleScope(draft, 'send', false, SCOPES).scopes).toEqual(['templates']);
  });

  it('sends the trimmed name and an expiry counted from now, or none', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    expect(keyBody({ name: ' Checkout ', scopes: ['send'], expiresInDays: '30' }, now)).toEqual({
      name: 'Checkout',
      scopes: ['send'],
      expiresAt: '2026-12-27T12:00:00.000Z',
    });
    expect(keyBody({ name: 'Site', scopes: ['track'], expiresInDays: '' }, now).expiresAt).toBeNull();
  });

  it('says who made a key in words', () => {
    expect(creatorLabel({ createdBy: { kind: 'user', id: 'u', label: 'ada@example.com' } })).toBe('ada@example.com');
    expect(creatorLabel({ createdBy: { kind: 'key', id: 'k', label: 'Provisioner' } })).toBe('the key “Provisioner”');
    expect(creatorLabel({ createdBy: { kind: 'secret-key', id: null, label: null } })).toBe('the secret key');
  });
});

describe('a route’s scope', () => {
  it('is the route’s one scope, or its reading or writing one by method', () => {
    const split = { read: 'contacts:read', write: 'contacts:write' } as const;
    expect(scopeOfRoute('send', 'POST')).toBe('send');
    expect(scopeOfRoute(split, 'GET')).toBe('contacts:read');
    expect(scopeOfRoute(split, 'HEAD')).toBe('contacts:read');
    expect(scopeOfRoute(split, 'DELETE')).toBe('contacts:write');
  });
});
