import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import * as repo from './repo.js';

const STANDARD_FIELDS = [
  { field: 'email', type: 'string', column: 'email' },
  { field: 'subscribed', type: 'boolean', column: 'subscribed' },
  { field: 'createdAt', type: 'date', column: null },
] as const;

export interface FieldDescriptor {
  field: string;
  type: string;
  isCustom: boolean;
  coverage: number;
}

/** `data.plan` or `plan` name a custom field; `email`, `subscribed`, `createdAt` the standard ones. */
export function parseFieldName(field: string) {
  const standard = STANDARD_FIELDS.find((f) => f.field === field);
  if (standard) return { kind: 'standard', standard } as const;
  const key = field.startsWith('data.') ? field.slice(5) : field;
  if (!key)
    throw new AppError(422, 'VALIDATION_ERROR', 'Request validation failed', {
      errors: [{ field: 'field', message: 'Field name is empty', code: 'too_small', received: field }],
    });
  return { kind: 'custom', key } as const;
}

export async function listFields(ctx: AppContext, projectId: string): Promise<{ fields: FieldDescriptor[] }> {
  const [types, coverage] = await Promise.all([
    repo.fieldTypes(ctx.db, projectId),
    repo.fieldCoverage(ctx.db, projectId),
  ]);
  const share = (n: number) => (coverage.total === 0 ? 0 : Math.round((n / coverage.total) * 10_000) / 10_000);
  const standard = STANDARD_FIELDS.map((f) => ({
    field: f.field,
    type: f.type,
    isCustom: false,
    coverage: coverage.total ? 1 : 0,
  }));
  const typed = new Map(types.map((t) => [t.key, t.type]));
  // A field is listed while some contact has it; its type outlives it, as types are fixed per project.
  const keys = [...coverage.keys.keys()].sort();
  const custom = keys.map((key) => ({
    field: `data.${key}`,
    type: typed.get(key) ?? 'string',
    isCustom: true,
    coverage: share(coverage.keys.get(key) ?? 0),
  }));
  return { fields: [...standard, ...custom] };
}

export async function fieldValues(ctx: AppContext, projectId: string, field: string, limit: number) {
  const parsed = parseFieldName(field);
  let source: { column: 'email' | 'subscribed' } | { key: string };
  if (parsed.kind === 'custom') source = { key: parsed.key };
  else if (parsed.standard.column) source = { column: parsed.standard.column };
  else throw new AppError(400, 'FIELD_NOT_ENUMERABLE', `${field} has no enumerable values`);
  const values = await repo.fieldValues(ctx.db, projectId, source, limit);
  return { field, values };
}

export async function deleteField(ctx: AppContext, projectId: string, field: string) {
  const parsed = parseFieldName(field);
  if (parsed.kind === 'standard') {
    throw new AppError(400, 'STANDARD_FIELD', `${field} is a standard field and cannot be deleted`);
  }
  const removedFrom = await ctx.db.transaction(async (tx) => {
    const n = await repo.removeField(tx, projectId, parsed.key);
    await audit.record(tx, {
      projectId,
      action: 'contact_field.deleted',
      target: { type: 'contact_field', id: `data.${parsed.key}` },
      changes: { removedFrom: n },
    });
    return n;
  });
  return { field: `data.${parsed.key}`, removedFrom };
}

export async function fieldUsage(ctx: AppContext, projectId: string, field: string) {
  const parsed = parseFieldName(field);
  const name = parsed.kind === 'standard' ? parsed.standard.field : `data.${parsed.key}`;
  return { field: name, ...(await ctx.usage.find(ctx.db, 'field', projectId, name)) };
}
