import QRCode from 'qrcode';
import { iso } from '../../domain/formats.js';
import { hashRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from '../../domain/recovery-codes.js';
import { newTotpSecret, totpStep, totpUri } from '../../domain/totp.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import * as projects from '../projects/service.js';
import * as repo from './repo.js';
import type { Enrolment, RecoveryCodes, TwoFactorStatus } from './schemas.js';

/**
 * Two-factor sign-in with an authenticator app (TOTP, RFC 6238) and ten single-use recovery codes
 * (docs/operations.md, "Two-factor sign-in"). Each TOTP code is taken once: the step of the last
 * code used is kept, and a code of that step or an earlier one is refused.
 */

/** A wrong, reused or missing code; 401 while signing in, 403 for a signed-in change. */
export const invalidCode = (status: 401 | 403, field = 'code') =>
  new AppError(status, 'INVALID_TWO_FACTOR_CODE', 'This code is not valid: it is wrong, expired or already used', {
    suggestion: 'Enter the code your authenticator app shows now; each code works once.',
    errors: [{ field, message: 'Wrong, expired or already used', code: 'custom' }],
  });

export async function isEnabled(ex: Executor, userId: string): Promise<boolean> {
  return !!(await repo.findTwoFactor(ex, userId))?.enabled_at;
}

export async function status(ctx: AppContext, userId: string): Promise<TwoFactorStatus> {
  const [row, left, requiredBy] = await Promise.all([
    repo.findTwoFactor(ctx.db, userId),
    repo.recoveryCodesLeft(ctx.db, userId),
    projects.projectsRequiringTwoFactor(ctx.db, userId),
  ]);
  const enabledAt = row?.enabled_at ?? null;
  return { enabled: !!enabledAt, enabledAt: enabledAt && iso(enabledAt), recoveryCodesLeft: left, requiredBy };
}

const alreadyEnabled = () =>
  new AppError(409, 'TWO_FACTOR_ENABLED', 'Two-factor sign-in is already on for this account', {
    suggestion: 'Turn it off first (with a code) to enrol another authenticator.',
  });

/** A new secret for the user's app; it protects nothing until a code from the app confirms it. */
export async function beginEnrolment(ctx: AppContext, user: { id: string; email: string }): Promise<Enrolment> {
  const secret = newTotpSecret();
  if (!(await repo.startEnrolment(ctx.db, user.id, secret, ctx.clock.now()))) throw alreadyEnabled();
  const uri = totpUri(secret, user.email);
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** Whether `code` is a current code of the user's secret not used before; marks it used. */
async function takeCode(ex: Executor, row: repo.TwoFactorRow, code: string, now: Date): Promise<boolean> {
  const step = totpStep(row.secret, code, now);
  return step !== null && (await repo.claimStep(ex, row.user_id, step));
}

/** Turns two-factor sign-in on with a first code from the app; answers the recovery codes, once. */
export async function confirmEnrolment(ctx: AppContext, userId: string, code: string): Promise<RecoveryCodes> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await repo.findTwoFactor(tx, userId);
    if (!row) {
      throw new AppError(409, 'NO_ENROLMENT', 'Start enrolment first (POST /users/@me/two-factor)', {
        suggestion: 'Scan a new QR code, then confirm it with a code.',
      });
    }
    if (row.enabled_at) throw alreadyEnabled();
    if (!(await takeCode(tx, row, code, now))) throw invalidCode(403);
    await repo.markEnabled(tx, userId, now);
    await audit.record(tx, {
      projectId: null,
      action: 'user.two_factor_enabled',
      target: { type: 'user', id: userId },
    });
    return { recoveryCodes: await replaceRecoveryCodes(tx, userId) };
  });
}

async function replaceRecoveryCodes(ex: Executor, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await repo.replaceRecoveryCodes(
    ex,
    userId,
    codes.map((c) => hashRecoveryCode(normalizeRecoveryCode(c)!)),
  );
  return codes;
}

/** A fresh TOTP code of the enabled second factor, taken once; false when wrong, used or off. */
export async function checkCode(ctx: AppContext, userId: string, code: string): Promise<boolean> {
  const row = await repo.findTwoFactor(ctx.db, userId);
  return !!row?.enabled_at && takeCode(ctx.db, row, code, ctx.clock.now());
}

/** One of the user's unused recovery codes, which is used up by this. */
export async function useRecoveryCode(ctx: AppContext, userId: string, code: string): Promise<boolean> {
  const normalized = normalizeRecoveryCode(code);
  if (!normalized || !(await isEnabled(ctx.db, userId))) return false;
  return repo.useRecoveryCode(ctx.db, userId, hashRecoveryCode(normalized), ctx.clock.now());
}

/** A new set of ten recovery codes for a fresh code; the old ones stop working. */
export async function regenerateRecoveryCodes(ctx: AppContext, userId: string, code: string): Promise<RecoveryCodes> {
  if (!(await checkCode(ctx, userId, code))) throw invalidCode(403);
  return ctx.db.transaction(async (tx) => {
    const recoveryCodes = await replaceRecoveryCodes(tx, userId);
    await audit.record(tx, {
      projectId: null,
      action: 'user.recovery_codes_regenerated',
      target: { type: 'user', id: userId },
    });
    return { recoveryCodes };
  });
}

/**
 * Turns two-factor sign-in off with a fresh code. Refused while a project of the user requires it:
 * they would be locked out of it at their next sign-in.
 */
export async function disable(ctx: AppContext, userId: string, code: string): Promise<void> {
  const requiredBy = await projects.projectsRequiringTwoFactor(ctx.db, userId);
  if (requiredBy.length > 0) {
    throw new AppError(
      409,
      'TWO_FACTOR_REQUIRED_BY_PROJECT',
      `${requiredBy.map((p) => p.name).join(', ')} requires two-factor sign-in of its members`,
      {
        details: { projects: requiredBy },
        suggestion: 'Ask an owner to lift the requirement, or leave the project, before turning it off.',
      },
    );
  }
  if (!(await checkCode(ctx, userId, code))) throw invalidCode(403);
  await ctx.db.transaction(async (tx) => {
    await repo.deleteTwoFactor(tx, userId);
    await audit.record(tx, {
      projectId: null,
      action: 'user.two_factor_disabled',
      target: { type: 'user', id: userId },
    });
  });
}
