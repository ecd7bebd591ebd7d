import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { OAuthGrantStore } from '../packages/server/src/stores/oauthGrantStore.js';
const file = `/tmp/redeem-${randomUUID()}.sqlite`;
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle.db);
await sql`pragma foreign_keys = off`.execute(handle.db);
const store = new OAuthGrantStore(handle.db);
const now = Date.now();
const codes: string[] = [];
for (let i = 0; i < 4000; i++) {
  const grantId = randomUUID(); const codeHash = randomUUID();
  await store.createGrantWithCode({ grantId, clientId: 'c', userUuid: 1, createdAt: now, revokedAt: null, revokedReason: null },
    { codeHash, grantId, clientId: 'c', userUuid: 1, redirectUri: 'https://a/cb', codeChallenge: 'ch', codeChallengeMethod: 'S256', createdAt: now, expiresAt: now + 600000, usedAt: null });
  codes.push(codeHash);
}
console.error('MINTED');
await new Promise((r) => setTimeout(r, 1500));
const s = process.cpuUsage(); const t0 = performance.now();
for (const c of codes) await store.redeemCode({ codeHash: c, now: Date.now(), clientId: 'c', redirectUri: 'https://a/cb', codeChallenge: 'ch' }, { tokenHash: randomUUID(), expiresAt: now + 1e6 });
const u = process.cpuUsage(s);
console.error(`user ${(u.user / 4000).toFixed(1)} sys ${(u.system / 4000).toFixed(1)} µs, wall ${((performance.now() - t0) * 1000 / 4000).toFixed(1)} µs`);
await handle.close();
