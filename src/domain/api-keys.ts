import { createHash, randomBytes } from 'node:crypto';

export type KeyKind = 'public' | 'secret';

const PREFIX: Record<KeyKind, string> = { public: 'pk_', secret: 'sk_' };

/** 256 random bits after the prefix. */
export function generateKey(kind: KeyKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function keyKindOf(key: string): KeyKind | null {
  if (key.startsWith('pk_')) return 'public';
  if (key.startsWith('sk_')) return 'secret';
  return null;
}

/** Keys carry enough entropy that a fast hash is safe; a slow one would tax every request. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
