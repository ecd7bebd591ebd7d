import { describe, expect, it } from 'vitest';
import { OAuthSessionStore } from '../../src/stores/oauthSessionStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('OAuth session store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('finds a session only while it lives, and purges the dead ones', async () => {
    await seedUser(db(), 70);
    const sessions = new OAuthSessionStore(db());
    const now = Date.now();
    await sessions.insertSession({ sessionHash: 'old', userUuid: 70, createdAt: 1, expiresAt: now - 1 });
    await sessions.insertSession({ sessionHash: 'new', userUuid: 70, createdAt: 1, expiresAt: now + 60_000 });
    expect(await sessions.findLiveSession('old', now)).toBeUndefined();
    await sessions.purgeExpired(now);
    expect(await sessions.findLiveSession('new', now)).toMatchObject({ userUuid: 70 });
    const left = await db().selectFrom('oauth_sessions').select('session_hash').execute();
    expect(left.map((r) => r.session_hash)).toEqual(['new']);
    await sessions.deleteSession('new');
    expect(await sessions.findLiveSession('new', now)).toBeUndefined();
  });

  it('records a consent once per user and app, however often it is given', async () => {
    await seedUser(db(), 71);
    await seedClient(db(), 'consent-app', 71);
    const sessions = new OAuthSessionStore(db());
    const now = Date.now();
    expect(await sessions.hasConsent(71, 'consent-app')).toBe(false);
    await Promise.all([
      sessions.recordConsent(71, 'consent-app', now),
      sessions.recordConsent(71, 'consent-app', now + 1),
    ]);
    await sessions.recordConsent(71, 'consent-app', now + 2);
    expect(await sessions.hasConsent(71, 'consent-app')).toBe(true);
    const rows = await db().selectFrom('oauth_consents').selectAll().where('user_uuid', '=', 71).execute();
    expect(rows).toHaveLength(1);
  });
});
