import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrateTo } from '../../src/db/migrate.js';
import { createPgSchema } from '../helpers/databases.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';
import { bearer, createClient, createUser, post } from '../helpers/http.js';
import { freePort, startTestServer } from '../helpers/server.js';
import { authorizeWithBearer, exchange, type TokenResult } from '../oauth/support.js';

/** The last migration of today's main, before organizations. */
const BEFORE_ORGS = '0260_session_devices';

/**
 * Migration 0270 on a database made before it (issue 38): an app with its grant and tokens, made by the
 * service, then the database taken back to the schema of today's main (0270's `down`: no organization
 * tables, no `org_id`). The service started on it again migrates: the app lands in its owner's personal
 * organization, and its client id, secret, access token and refresh token keep working.
 */
describe.each([false, true].filter((pg) => !pg || postgresAvailable))(
  'migration 0270 on a database of today (postgres: %s)',
  (postgres) => {
    it('moves every app into its owner personal org; ids, secrets and tokens keep working', async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dauth-orgs-migration-'));
      const schema = postgres ? await createPgSchema() : undefined;
      // The same address both times: it is the tokens' issuer.
      const port = await freePort();
      const serverOptions = {
        dataDir,
        postgres,
        env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` },
        ...(schema ? { pgSchemaName: schema.schema } : {}),
      };
      try {
        const before = await startTestServer(serverOptions);
        const owner = await createUser(before.url, 'owner');
        const client = await createClient(before.url, owner, ['https://game.example/cb']);
        const { code } = await authorizeWithBearer(before.url, owner, client);
        const granted = await exchange(before.url, client, code);
        expect(granted.status).toBe(200);
        const tokens = (await granted.json()) as TokenResult;
        await before.close();

        // Back to today's main: 0270 undone.
        const handle = openDatabase(
          schema
            ? { databaseUrl: TEST_DATABASE_URL, pgSchema: schema.schema, poolSize: 2 }
            : { sqlitePath: path.join(dataDir, 'dauth.sqlite') },
        );
        try {
          const { error } = await migrateTo(handle.db, BEFORE_ORGS);
          expect(error).toBeUndefined();
          const applied = await sql<{
            name: string;
          }>`select name from kysely_migration order by name`.execute(handle.db);
          expect(applied.rows.at(-1)?.name).toBe(BEFORE_ORGS);
          await expect(sql`select org_id from oauth_clients`.execute(handle.db)).rejects.toThrow();
          await expect(sql`select id from organizations`.execute(handle.db)).rejects.toThrow();
        } finally {
          await handle.close();
        }

        const after = await startTestServer(serverOptions);
        try {
          // The tokens issued before the migration are still valid, and the secret still authenticates.
          const validated = await fetch(`${after.url}/v1/oauth/validate`, {
            headers: bearer(tokens.access_token),
          });
          expect(validated.status).toBe(200);
          const refreshed = await post(`${after.url}/oauth/token`, {
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token,
            client_id: client.clientId,
            client_secret: client.clientSecret,
          });
          expect(refreshed.status).toBe(200);
          expect(((await refreshed.json()) as TokenResult).user_id).toBe(owner.uuid);

          // The app is in its owner's personal organization, which the owner holds as owner.
          const personal = `org_u${owner.uuid}`;
          const orgs = await fetch(`${after.url}/v1/orgs`, { headers: bearer(owner.loginToken) });
          expect(((await orgs.json()) as { orgs: unknown[] }).orgs).toEqual([
            { id: personal, name: 'Personal', personal: true, role: 'owner', created_at: expect.any(String) },
          ]);
          const apps = await fetch(`${after.url}/v1/orgs/${personal}/apps`, {
            headers: bearer(owner.loginToken),
          });
          expect(((await apps.json()) as { apps: { client_id: string; org_id: string }[] }).apps).toEqual([
            expect.objectContaining({ client_id: client.clientId, org_id: personal }),
          ]);
          // The owner still manages it, and a new code flow still works with the same id and secret.
          const renamed = await fetch(`${after.url}/v1/dev-user/clients/${client.clientId}`, {
            method: 'PATCH',
            headers: { ...bearer(owner.loginToken), 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Renamed after the migration' }),
          });
          expect(renamed.status).toBe(200);
          const again = await authorizeWithBearer(after.url, owner, client);
          expect((await exchange(after.url, client, again.code)).status).toBe(200);
        } finally {
          await after.close();
        }
      } finally {
        await schema?.drop();
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    }, 180_000);
  },
);
