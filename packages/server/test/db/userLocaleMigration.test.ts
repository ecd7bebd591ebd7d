import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo } from '../../src/db/migrate.js';
import { UserStore } from '../../src/stores/userStore.js';
import { openEmptyDatabase } from '../helpers/databases.js';
import { postgresAvailable } from '../helpers/environment.js';

const BEFORE = '0290_app_sponsorship';
const LOCALE = '0300_user_locale';

/**
 * Migration 0300 (`users.locale`, docs/account.md "Language") on a database made before it: its accounts
 * read as of unknown language (null: English mails) and take one once set; `down` drops the column again.
 */
describe.each([false, true].filter((pg) => !pg || postgresAvailable))(
  'migration 0300 users.locale (postgres: %s)',
  (postgres) => {
    it('leaves earlier accounts without a language, stores one once set, and goes down again', async () => {
      const { handle, dispose } = await openEmptyDatabase(postgres);
      try {
        expect((await migrateTo(handle.db, BEFORE)).error).toBeUndefined();
        await sql`insert into users (user_uuid, email, password_hash, nickname, created_at)
          values (${1_000_000_001}, ${'before@example.com'}, ${'h'}, ${'before'}, ${1_700_000_000_000})`.execute(
          handle.db,
        );
        await expect(sql`select locale from users`.execute(handle.db)).rejects.toThrow();

        const { error, results } = await migrateTo(handle.db, LOCALE);
        expect(error).toBeUndefined();
        expect(results?.map((r) => [r.migrationName, r.status])).toEqual([[LOCALE, 'Success']]);

        const users = new UserStore(handle.db);
        const before = await users.findById(1_000_000_001);
        expect(before).toMatchObject({ email: 'before@example.com', locale: undefined });
        const raw = await sql<{ locale: string | null }>`select locale from users`.execute(handle.db);
        expect(raw.rows).toEqual([{ locale: null }]);

        expect(await users.setLocale(1_000_000_001, 'zh-Hans')).toBe(true);
        expect((await users.findById(1_000_000_001))?.locale).toBe('zh-Hans');
        expect(await users.setLocale(9_999_999_999, 'ja')).toBe(false);
        // A tag no longer supported reads as unknown rather than failing a mail.
        await sql`update users set locale = ${'tlh'}`.execute(handle.db);
        expect((await users.findById(1_000_000_001))?.locale).toBeUndefined();

        expect((await migrateTo(handle.db, BEFORE)).error).toBeUndefined();
        await expect(sql`select locale from users`.execute(handle.db)).rejects.toThrow();
        expect((await users.findById(1_000_000_001))?.email).toBe('before@example.com');
      } finally {
        await dispose();
      }
    }, 120_000);
  },
);
