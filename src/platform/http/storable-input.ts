import type { FastifyInstance } from 'fastify';
import { type FieldError, validationError } from './errors.js';

// PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses unpaired UTF-16 surrogates; very deep
// nesting overflows the stack of whatever serialises it next. Without this check such input fails
// deep in a query or a schema refinement as a 500.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL text cannot store
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const TEXT_MESSAGE = 'Must not contain NUL characters or unpaired UTF-16 surrogates';
const MAX_DEPTH = 64;
const MAX_ERRORS = 10;

interface PathNode {
  parent: PathNode | null;
  key: string;
  depth: number;
}

function fieldOf(node: PathNode | null): string {
  const keys: string[] = [];
  for (let n = node; n; n = n.parent) keys.push(n.key);
  return keys.reverse().join('.');
}

/** Field errors for unstorable strings or object keys, and for nesting deeper than MAX_DEPTH. */
export function unstorableInput(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  // Iterative, with paths shared between siblings: a deeply nested body costs linear time.
  const stack: [unknown, PathNode | null][] = [[value, null]];
  while (stack.length > 0 && errors.length < MAX_ERRORS) {
    const [current, path] = stack.pop()!;
    const depth = path?.depth ?? 0;
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current))
        errors.push({ field: fieldOf(path), message: TEXT_MESSAGE, code: 'invalid_string' });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_DEPTH) {
      errors.push({ field: fieldOf(path), message: `Must not nest deeper than ${MAX_DEPTH} levels`, code: 'too_big' });
      continue;
    }
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--)
        stack.push([current[i], { parent: path, key: String(i), depth: depth + 1 }]);
      continue;
    }
    for (const [key, item] of Object.entries(current)) {
      const node = { parent: path, key, depth: depth + 1 };
      if (UNSTORABLE.test(key)) errors.push({ field: fieldOf(node), message: TEXT_MESSAGE, code: 'invalid_string' });
      else stack.push([item, node]);
    }
  }
  return errors;
}

/** Refuses such input in path, query and JSON body with a 422, after auth and before validation. */
export function registerStorableInput(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const errors = [
      ...unstorableInput(request.params),
      ...unstorableInput(request.query),
      ...unstorableInput(request.body),
    ];
    if (errors.length > 0) throw validationError(errors.slice(0, MAX_ERRORS));
  });
}
