import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `sso_sign_ins` lives here. */

export interface SignInRow {
  nonce: string;
  code_verifier: string;
}

/** A started sign-in; the ones left unfinished past their expiry are cleared on the way. */
export async function insertSignIn(
  ex: Executor,
  v: { stateHash: string; nonce: string; codeVerifier: string; expiresAt: Date; now: Date },
): Promise<void> {
  await run(
    ex,
    sql`with expired as (delete from sso_sign_ins where expires_at <= ${v.now})
      insert into sso_sign_ins (state_hash, nonce, code_verifier, expires_at)
      values (${v.stateHash}, ${v.nonce}, ${v.codeVerifier}, ${v.expiresAt})`,
  );
}

/** Takes the sign-in of this state, once: a second answer with the same state finds nothing. */
export async function takeSignIn(ex: Executor, stateHash: string, now: Date): Promise<SignInRow | null> {
  const r = await run<SignInRow & { live: boolean }>(
    ex,
    sql`delete from sso_sign_ins where state_hash = ${stateHash}
      returning nonce, code_verifier, expires_at > ${now} as live`,
  );
  const row = r.rows[0];
  return row?.live ? row : null;
}
