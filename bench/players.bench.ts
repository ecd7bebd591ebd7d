/**
 * The players directory over 1,000,000 players on PostgreSQL (decisions §9, docs/players.md): lookups by
 * uuid, by wallet address and by e-mail, each p99 under 50 ms, and a page of the uuid-ordered list.
 *
 * A fresh schema of the PostgreSQL at DATABASE_URL (default the test database), migrated, then seeded in a
 * few set-based statements (`generate_series`): `--players` accounts with a main wallet, each holding a
 * live grant of one app (half of them with the `email` scope), plus as many grants of another app, so
 * the app's players are a slice of a bigger table. Then `--lookups` searches of each kind through
 * `PlayerDirectoryService.list` (what `GET /v1/orgs/{id}/apps/{client_id}/players?q=` runs: the search and
 * the profile reads), one at a time, and the query plans (EXPLAIN ANALYZE) of each search.
 *
 *   npm run bench:players
 *   npm run bench:players -- --players 100000 --lookups 500 --keep
 */
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { checksumAddress } from '../packages/server/src/chain/address.js';
import { PlayerDirectoryService } from '../packages/server/src/services/players/playerDirectoryService.js';
import { PlayerDirectoryStore } from '../packages/server/src/stores/playerDirectoryStore.js';
import { machineInfo, writeBenchSummary } from './summary.js';

const { values } = parseArgs({
  options: {
    players: { type: 'string', default: '1000000' },
    lookups: { type: 'string', default: '2000' },
    keep: { type: 'boolean', default: false },
  },
});
const players = Number(values.players);
const lookups = Number(values.lookups);
const url =
  process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const APP = 'benchapp0000000000000000000000000';
const OTHER = 'benchother000000000000000000000000';
const BASE = 1_000_000_000;
const round = (n: number) => Number(n.toFixed(2));

/** Addresses of decimal digits only: their EIP-55 form is themselves, as the wallets table stores it. */
const addressOf = (i: number) => `0x${String(i).padStart(40, '0')}`;

const schema = `bench_players_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`create schema ${schema}`);
const handle = openDatabase({ databaseUrl: url, pgSchema: schema, poolSize: 4 });
const db = handle.db;

try {
  await migrateToLatest(db);
  const seedStart = performance.now();
  const n = players;
  // One session, foreign-key triggers off while seeding (every row references rows made just before).
  const seeder = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await seeder.connect();
  await seeder.query('set session_replication_role = replica');
  await seeder.query(
    `insert into users (user_uuid, email, password_hash, nickname, created_at)
     select $1::bigint + g, 'player' || g || '@example.com', '', 'p', 1700000000000 + g
     from generate_series(0, $2::int) g`,
    [BASE, n],
  );
  await seeder.query(
    `insert into oauth_clients (client_id, owner_uuid, name, redirect_uris, dapp, secret_hash, created_at, post_logout_redirect_uris)
     values ($1, $3, 'Bench', '[]', 0, 'x', 1, '[]'), ($2, $3, 'Other', '[]', 0, 'x', 1, '[]')`,
    [APP, OTHER, BASE],
  );
  await seeder.query(
    `insert into wallets (address, user_uuid, kind, salt, initial_owner, owner, deployed, created_at)
     select '0x' || lpad(g::text, 40, '0'), $1::bigint + g, 'main', '0', '0x' || lpad(g::text, 40, '0'),
       '0x' || lpad(g::text, 40, '0'), 0, 1
     from generate_series(1, $2::int) g`,
    [BASE, n],
  );
  await seeder.query(
    `insert into oauth_grants (grant_id, client_id, user_uuid, created_at, scope, last_used_at)
     select 'g' || g, $1, $2::bigint + g, 1700000000000 + g,
       case when g % 2 = 0 then 'openid email' else 'openid' end, 1700000500000 + g
     from generate_series(1, $3::int) g`,
    [APP, BASE, n],
  );
  await seeder.query(
    `insert into oauth_grants (grant_id, client_id, user_uuid, created_at)
     select 'o' || g, $1, $2::bigint + g, 1700000000000 + g from generate_series(1, $3::int) g`,
    [OTHER, BASE, n],
  );
  await seeder.query('analyze');
  await seeder.end();
  const seedSeconds = (performance.now() - seedStart) / 1000;
  console.log(`seeded ${n} players (${2 * n} grants) in ${seedSeconds.toFixed(1)} s`);

  const directory = new PlayerDirectoryService(
    {
      store: new PlayerDirectoryStore(db),
      slots: { listByOwner: async () => [] },
      sessionKeys: { keysOf: async () => [] },
      grants: { revokeUserClientGrants: async () => 0, withdrawConsent: async () => false },
    },
    checksumAddress,
  );
  // An even player consented to `email`, so the e-mail search finds them.
  const pick = () => randomInt(1, n / 2) * 2;
  const kinds: Record<string, (i: number) => string> = {
    uuid: (i) => String(BASE + i),
    address: (i) => addressOf(i),
    email: (i) => `player${i}@example.com`,
  };
  const results: Record<string, { p50_ms: number; p99_ms: number; max_ms: number }> = {};
  for (const [kind, q] of Object.entries(kinds)) {
    for (let i = 0; i < 50; i++) await directory.list(APP, { q: q(pick()) }); // warm the pool and plans
    const times: number[] = [];
    for (let i = 0; i < lookups; i++) {
      const target = pick();
      const start = performance.now();
      const { players: found } = await directory.list(APP, { q: q(target) });
      times.push(performance.now() - start);
      if (found[0]?.userId !== String(BASE + target)) throw new Error(`${kind} lookup missed ${target}`);
    }
    times.sort((a, b) => a - b);
    results[kind] = {
      p50_ms: round(times[Math.floor(times.length * 0.5)]!),
      p99_ms: round(times[Math.floor(times.length * 0.99)]!),
      max_ms: round(times[times.length - 1]!),
    };
  }
  // A page of 50 from the middle of the list, by cursor.
  const pageTimes: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    const page = await directory.list(APP, { limit: 50, cursor });
    pageTimes.push(performance.now() - start);
    cursor = page.nextCursor;
  }
  pageTimes.sort((a, b) => a - b);
  results.page_of_50 = {
    p50_ms: round(pageTimes[100]!),
    p99_ms: round(pageTimes[198]!),
    max_ms: round(pageTimes[199]!),
  };
  console.table(results);

  // The same searches' statements as PostgreSQL times them (EXPLAIN ANALYZE execution time): what the
  // indexes cost, without this process's scheduling on a shared machine.
  const timer = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await timer.connect();
  const statements: Record<string, [string, (i: number) => unknown[]]> = {
    uuid_grants: [
      `select user_uuid, min(created_at), max(coalesce(last_used_at, created_at)) from oauth_grants
       where client_id = $1 and revoked_at is null and user_uuid = $2 group by user_uuid`,
      (i) => [APP, BASE + i],
    ],
    address_to_uuid: [
      `select user_uuid from wallets where address = $1 and kind = 'main'`,
      (i) => [addressOf(i)],
    ],
    email_to_uuid: ['select user_uuid from users where email = $1', (i) => [`player${i}@example.com`]],
    profile: [
      `select u.user_uuid, u.email, g.user_uuid, w.address from users u
       left join guest_accounts g on g.user_uuid = u.user_uuid
       left join wallets w on w.user_uuid = u.user_uuid and w.kind = 'main' where u.user_uuid in ($1)`,
      (i) => [BASE + i],
    ],
  };
  const database: Record<string, { p50_ms: number; p99_ms: number; max_ms: number }> = {};
  for (const [name, [text, params]] of Object.entries(statements)) {
    const times: number[] = [];
    for (let i = 0; i < Math.min(lookups, 1000); i++) {
      const { rows } = await timer.query<{ 'QUERY PLAN': string }>(`explain analyze ${text}`, params(pick()));
      const last = rows.map((r) => r['QUERY PLAN']).find((line) => line.startsWith('Execution Time'))!;
      times.push(Number(/([\d.]+) ms/.exec(last)![1]));
    }
    times.sort((x, y) => x - y);
    database[name] = {
      p50_ms: round(times[Math.floor(times.length * 0.5)]!),
      p99_ms: round(times[Math.floor(times.length * 0.99)]!),
      max_ms: round(times[times.length - 1]!),
    };
  }
  await timer.end();
  console.table(database);

  const target = pick();
  const explain = async (label: string, query: string, params: unknown[]) => {
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain analyze ${query}`, params);
    await client.end();
    console.log(`\n-- ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  };
  const grantsOf = `select user_uuid, min(created_at), max(coalesce(last_used_at, created_at)),
      max(case when (' ' || coalesce(scope, '') || ' ') like '% email %' then 1 else 0 end)
    from oauth_grants where client_id = $1 and revoked_at is null and user_uuid = $2 group by user_uuid`;
  await explain('the player by uuid (the grants of the app)', grantsOf, [APP, BASE + target]);
  await explain(
    'the uuid of a wallet address',
    `select user_uuid from wallets where address = $1 and kind = 'main'`,
    [addressOf(target)],
  );
  await explain('the uuid of an e-mail', 'select user_uuid from users where email = $1', [
    `player${target}@example.com`,
  ]);
  await explain(
    'a page of 50 after a cursor',
    `select user_uuid, min(created_at), max(coalesce(last_used_at, created_at)) from oauth_grants
     where client_id = $1 and revoked_at is null and user_uuid > $2 group by user_uuid order by user_uuid limit 51`,
    [APP, BASE + n / 2],
  );
  writeBenchSummary({
    bench: 'players',
    players: n,
    lookups,
    seed_seconds: round(seedSeconds),
    results,
    database,
  });
  console.log(`\n${JSON.stringify(machineInfo())}`);
  const slow = Object.entries({ ...results, ...database }).filter(([, r]) => r.p99_ms >= 50);
  if (slow.length > 0) {
    console.error(`p99 at or over 50 ms: ${slow.map(([k]) => k).join(', ')}`);
    process.exitCode = 1;
  }
} finally {
  await handle.close();
  if (!values.keep) await admin.query(`drop schema ${schema} cascade`);
  else console.log(`kept schema ${schema}`);
  await admin.end();
}
