/**
 * The code exchange's group commit under a kill (redemptionCrash.test.ts): redeems codes of a SQLite file
 * in waves of concurrent redemptions (each wave one batch of `GroupCommit`) and prints one JSON line per
 * answered redemption the moment its promise resolves. The test SIGKILLs this process at some moment after
 * an answer and then checks the file: every answered code is spent with its refresh token, and no code is
 * spent without one.
 */
import { sql } from 'kysely';
import { openDatabase } from '../../../src/db/database.js';
import { OAuthGrantStore } from '../../../src/stores/oauthGrantStore.js';

const handle = openDatabase({ sqlitePath: process.env.REDEEM_FILE! });
await sql`pragma foreign_keys = off`.execute(handle.db);
const store = new OAuthGrantStore(handle.db);
const codes = (
  await sql<{ code_hash: string }>`select code_hash from oauth_codes order by code_hash`.execute(handle.db)
).rows.map((r) => r.code_hash);
const WAVE = 16;
for (let start = 0; start < codes.length; start += WAVE) {
  await Promise.all(
    codes.slice(start, start + WAVE).map(async (codeHash) => {
      const now = Date.now();
      const row = await store.redeemCode(
        { codeHash, now, clientId: 'c', redirectUri: 'https://a/cb', codeChallenge: null },
        { tokenHash: `token-of-${codeHash}`, expiresAt: now + 3_600_000 },
      );
      // Synchronous on a pipe: the line is out before the next statement runs.
      if (row) process.stdout.write(`${JSON.stringify({ step: 'answered', codeHash })}\n`);
    }),
  );
}
process.stdout.write(`${JSON.stringify({ step: 'done' })}\n`);
await handle.close();
