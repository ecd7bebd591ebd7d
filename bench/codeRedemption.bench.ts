/**
 * Micro-benchmark: the code exchange's one commit on SQLite (`OAuthGrantStore.redeemCode`: the conditional
 * UPDATE of the code and the INSERT of the first refresh token) through Kysely's transaction (`begin`, the
 * two statements and `commit`, each an async round through the driver: the code before issue 43) against
 * the native better-sqlite3 transaction `redeemCode` runs alone, and `redeemCode` called 16 at a time (its
 * group commit: one transaction for the redemptions of one event-loop turn, as under the token endpoint's
 * load). A fresh WAL file, foreign keys off (no users or apps are made), alternating rounds; CPU and wall
 * time per redemption. Not a test: it asserts nothing.
 *
 *   node --conditions development --import tsx bench/codeRedemption.bench.ts
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'kysely';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { OAuthGrantStore } from '../packages/server/src/stores/oauthGrantStore.js';

const file = `/tmp/redeem-${randomUUID()}.sqlite`;
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle.db);
await sql`pragma foreign_keys = off`.execute(handle.db);
const store = new OAuthGrantStore(handle.db);
const N = 3000;
async function mint(n: number) {
  const codes: string[] = [];
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    const grantId = randomUUID();
    const codeHash = randomUUID();
    await store.createGrantWithCode(
      { grantId, clientId: 'c', userUuid: 1, createdAt: now, revokedAt: null, revokedReason: null },
      {
        codeHash,
        grantId,
        clientId: 'c',
        userUuid: 1,
        redirectUri: 'https://a/cb',
        codeChallenge: 'ch',
        codeChallengeMethod: 'S256',
        createdAt: now,
        expiresAt: now + 600000,
        usedAt: null,
      },
    );
    codes.push(codeHash);
  }
  return codes;
}
async function kysely(codeHash: string) {
  const now = Date.now();
  const consume = sql`update oauth_codes set used_at = ${now}
      where code_hash = ${codeHash} and used_at is null and expires_at > ${now}
        and client_id = ${'c'} and redirect_uri = ${'https://a/cb'} and code_challenge = ${'ch'}
        and not exists (select 1 from oauth_grants g
                        where g.grant_id = oauth_codes.grant_id and g.revoked_at is not null)
      returning *`;
  return handle.db.transaction().execute(async (trx) => {
    const row = (await consume.execute(trx)).rows[0] as
      { grant_id: string; client_id: string; user_uuid: number } | undefined;
    if (!row) return undefined;
    await sql`insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid, created_at, expires_at)
      values (${randomUUID()}, ${row.grant_id}, ${row.client_id}, ${row.user_uuid}, ${now}, ${now + 1e6})`.execute(
      trx,
    );
    return row;
  });
}
async function native(codeHash: string) {
  return store.redeemCode(
    { codeHash, now: Date.now(), clientId: 'c', redirectUri: 'https://a/cb', codeChallenge: 'ch' },
    { tokenHash: randomUUID(), expiresAt: Date.now() + 1e6 },
  );
}
/** 16 redemptions submitted in one turn, awaited together: one group commit. */
const GROUP = 16;
for (let round = 0; round < 3; round++) {
  for (const [name, f, together] of [
    ['kysely', kysely, 1],
    ['native', native, 1],
    [`native, ${GROUP} at a time`, native, GROUP],
  ] as const) {
    const codes = await mint(N);
    const start = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < codes.length; i += together) {
      const rows = await Promise.all(codes.slice(i, i + together).map((c) => f(c)));
      if (!rows.every(Boolean)) throw new Error('not redeemed');
    }
    const u = process.cpuUsage(start);
    console.log(
      `${name}: ${((u.user + u.system) / N).toFixed(1)} µs CPU, ${(((performance.now() - t0) * 1000) / N).toFixed(1)} µs wall per redemption`,
    );
  }
}
await handle.close();
for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
