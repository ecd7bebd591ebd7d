import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { OAuthGrantStore } from '../../src/stores/oauthGrantStore.js';
import { runUntilKilled } from '../chain/crash/crashSupport.js';

const CHILD = fileURLToPath(new URL('./crash/redeemChild.ts', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redeem-crash-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Group commit answers a redemption only after the transaction holding it committed (db/groupCommit.ts):
 * a kill -9 in the middle of the waves must leave every answered code spent with its refresh token, and the
 * batch in flight either wholly committed or wholly absent (never a code spent without its token).
 */
describe('code redemption under kill -9 (SQLite group commit)', () => {
  it('keeps every answered redemption, and no code spent without its refresh token', async () => {
    const file = path.join(dir, 'redeem.sqlite');
    const CODES = 2000;
    const setup = openDatabase({ sqlitePath: file });
    await migrateToLatest(setup.db);
    await sql`pragma foreign_keys = off`.execute(setup.db);
    const store = new OAuthGrantStore(setup.db);
    const now = Date.now();
    for (let i = 0; i < CODES; i++) {
      const grantId = randomUUID();
      await store.createGrantWithCode(
        { grantId, clientId: 'c', userUuid: 1, createdAt: now, revokedAt: null, revokedReason: null },
        {
          codeHash: randomUUID(),
          grantId,
          clientId: 'c',
          userUuid: 1,
          redirectUri: 'https://a/cb',
          codeChallenge: null,
          codeChallengeMethod: null,
          createdAt: now,
          expiresAt: now + 600_000,
          usedAt: null,
        },
      );
    }
    await setup.close();

    // Killed a moment after the 200th answer: later waves are in flight.
    let answers = 0;
    const { lines, stderr } = await runUntilKilled(
      { REDEEM_FILE: file },
      (line) => line.step === 'answered' && ++answers === 200,
      Math.floor(Math.random() * 20),
      { child: CHILD },
    );
    const answered = lines.filter((l) => l.step === 'answered').map((l) => l.codeHash as string);
    expect(answered.length, stderr).toBeGreaterThanOrEqual(200);
    expect(
      lines.some((l) => l.step === 'done'),
      'killed before the end',
    ).toBe(false);

    const reopened = openDatabase({ sqlitePath: file });
    try {
      const rows = (
        await sql<{ code_hash: string; used_at: number | null; token_hash: string | null }>`
          select c.code_hash, c.used_at, t.token_hash from oauth_codes c
          left join oauth_refresh_tokens t on t.token_hash = 'token-of-' || c.code_hash`.execute(reopened.db)
      ).rows;
      const byCode = new Map(rows.map((r) => [r.code_hash, r]));
      for (const codeHash of answered) {
        expect(byCode.get(codeHash)?.used_at, codeHash).not.toBeNull();
        expect(byCode.get(codeHash)?.token_hash, codeHash).not.toBeNull();
      }
      // Atomic: spent exactly when its token exists.
      for (const r of rows) expect(r.used_at === null, r.code_hash).toBe(r.token_hash === null);
      // A spent code never redeems again after the restart.
      const again = new OAuthGrantStore(reopened.db);
      for (const codeHash of answered.slice(0, 50)) {
        expect(
          await again.redeemCode(
            { codeHash, now: Date.now(), clientId: 'c', redirectUri: 'https://a/cb', codeChallenge: null },
            { tokenHash: `again-${codeHash}`, expiresAt: Date.now() + 1000 },
          ),
        ).toBeUndefined();
      }
    } finally {
      await reopened.close();
    }
  }, 120_000);
});
