import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `user_two_factor` and `user_recovery_codes`. */

export interface TwoFactorRow {
  user_id: string;
  secret: string;
  created_at: Date;
  /** Null while enrolment waits for its confirming code. */
  enabled_at: Date | null;
  last_used_step: string | null;
}

export async function findTwoFactor(ex: Executor, userId: string): Promise<TwoFactorRow | null> {
  const r = await run<TwoFactorRow>(ex, sql`select * from user_two_factor where user_id = ${userId}`);
  return r.rows[0] ?? null;
}

/** A new secret waiting for confirmation, replacing an earlier unconfirmed one; null when enabled. */
export async function startEnrolment(ex: Executor, userId: string, secret: string, now: Date): Promise<boolean> {
  const r = await run(
    ex,
    sql`insert into user_two_factor (user_id, secret, created_at) values (${userId}, ${secret}, ${now})
      on conflict (user_id) do update set secret = excluded.secret, created_at = excluded.created_at,
        last_used_step = null
      where user_two_factor.enabled_at is null
      returning user_id`,
  );
  return r.rows.length > 0;
}

/**
 * Records `step` as used, when no code of this step or a later one was used before: two requests
 * with the same code cannot both pass, whatever their timing.
 */
export async function claimStep(ex: Executor, userId: string, step: number): Promise<boolean> {
  const r = await run(
    ex,
    sql`update user_two_factor set last_used_step = ${step}
      where user_id = ${userId} and (last_used_step is null or last_used_step < ${step}) returning user_id`,
  );
  return r.rows.length > 0;
}

export async function markEnabled(ex: Executor, userId: string, now: Date): Promise<void> {
  await run(ex, sql`update user_two_factor set enabled_at = ${now} where user_id = ${userId}`);
}

export async function deleteTwoFactor(ex: Executor, userId: string): Promise<void> {
  await run(ex, sql`delete from user_two_factor where user_id = ${userId}`);
  await run(ex, sql`delete from user_recovery_codes where user_id = ${userId}`);
}

export async function replaceRecoveryCodes(ex: Executor, userId: string, hashes: readonly string[]): Promise<void> {
  await run(ex, sql`delete from user_recovery_codes where user_id = ${userId}`);
  await run(
    ex,
    sql`insert into user_recovery_codes (user_id, code_hash)
      select ${userId}, unnest(${`{${hashes.join(',')}}`}::text[])`,
  );
}

/** Marks an unused code used; false when there is no such code or it was used before. */
export async function useRecoveryCode(ex: Executor, userId: string, hash: string, now: Date): Promise<boolean> {
  const r = await run(
    ex,
    sql`update user_recovery_codes set used_at = ${now}
      where user_id = ${userId} and code_hash = ${hash} and used_at is null returning user_id`,
  );
  return r.rows.length > 0;
}

export async function recoveryCodesLeft(ex: Executor, userId: string): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from user_recovery_codes where user_id = ${userId} and used_at is null`,
  );
  return r.rows[0]!.n;
}
