/**
 * HTTP benchmark of the OAuth hot paths (docs/performance-http.md).
 *
 *   npm run bench                                   # embedded SQLite
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench   # PostgreSQL (fresh schema)
 *
 * Every server under test runs in its own child process (one core for it, one for autocannon in
 * this process) and each is measured at 50 connections:
 *   a) a bare Fastify route returning small JSON (the ceiling of the HTTP stack)
 *   b) GET /v1/oauth/validate with a live access token
 *   c) POST /oauth/token: code exchange (PKCE, client_secret_post) from a pre-minted pool of codes
 *   d) oidc-provider's code exchange with PKCE, configured like dauth (ES256 JWT access tokens,
 *      refresh tokens, client_secret_post, one grant per code, storage in the same database)
 *   e) oidc-provider's introspection of a live opaque access token
 *   f) POST /oauth/token: code exchange of an OpenID Connect authorization (scope=openid, a nonce):
 *      the answer carries an ES256 id_token besides the access token
 *   g) oidc-provider's code exchange with scope=openid (its answer carries an id_token too)
 *
 * BENCH_ONLY=f,g runs only the OpenID Connect pair (and mints only their code pools).
 *
 * BENCH_CALLGRIND=1 (bench/instructionCount.ts) counts instructions per request instead: the bare route,
 * dauth's validate and dauth's `/healthz`, each server under valgrind's callgrind, in BENCH_REPEAT alternated
 * rounds; no throughput, one JSON line:
 *
 *   BENCH_CALLGRIND=1 BENCH_REPEAT=2 npm run bench
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import {
  callgrindEnabled,
  compareInstructionCounts,
  instructionCountFields,
  measuredCommand,
} from './instructionCount.js';
import { writeBenchSummary } from './summary.js';

const thisFile = fileURLToPath(import.meta.url);
const CONNECTIONS = 50;
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CODE_POOL = Number(process.env.BENCH_CODES ?? 12_000);
const WARMUP_CODES = Number(process.env.BENCH_WARMUP_CODES ?? 1500);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'a,b,c,d,e,f,g').split(',').map((r) => r.trim()));
const OIDC_NONCE = 'bench-nonce';
/** Each run is repeated this many times and the median kept (a shared machine is noisy). */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
/** How many codes each pool needs: the measured rounds, the warm-up and the probe. */
const POOL_SIZE = CODE_POOL * REPEAT + WARMUP_CODES + 1;
const REDIRECT_URI = 'https://bench.example/callback';

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// One verifier for every code of a run: the children inherit it from the parent's environment.
const pkceVerifier = (process.env.BENCH_PKCE_VERIFIER ??= randomBytes(32).toString('base64url'));
const pkceChallenge = createHash('sha256').update(pkceVerifier).digest('base64url');

/** A fresh PostgreSQL schema when DATABASE_URL is set (dropped by the parent at the end). */
async function createSchema(databaseUrl: string): Promise<string> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  return schema;
}

async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}

const progress = (text: string) =>
  process.stderr.write(
    `  ${new Date().toISOString().slice(11, 23)} [${process.argv.includes('--role') ? 'server' : 'bench'}] ${text}\n`,
  );

interface ReadyMessage {
  ready: true;
  url: string;
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Child: a bare Fastify route
// ---------------------------------------------------------------------------------------------

async function serveBare(): Promise<ReadyMessage> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get(
    '/json',
    { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },
    async () => ({ hello: 'world' }),
  );
  const port = await freePort();
  await app.listen({ host: '127.0.0.1', port });
  return { ready: true, url: `http://127.0.0.1:${port}` };
}

// ---------------------------------------------------------------------------------------------
// Child: dauth
// ---------------------------------------------------------------------------------------------

async function serveDauth(): Promise<ReadyMessage> {
  const { loadConfig } = await import('../packages/server/src/config.js');
  const { startServer } = await import('../packages/server/src/server.js');
  const { default: pino } = await import('pino');
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-'));
  const databaseUrl = process.env.DATABASE_URL;
  const schema = process.env.BENCH_SCHEMA;
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    // Production level: warnings only, no per-request lines (oidc-provider logs nothing either).
    LOG_LEVEL: 'warn',
    // The load generator is one client on one address; the limiter still runs, it just never trips.
    OAUTH_RATE_LIMIT: '100000000',
    ...(databaseUrl
      ? {
          DATABASE_URL: databaseUrl,
          MASTER_KEY: 'ef'.repeat(32),
          ADMIN_API_KEY: 'bench-admin-key-0123456789',
        }
      : {}),
  });
  const server = await startServer(config, {
    logger: pino({ level: 'warn' }),
    ...(schema ? { pgSchema: schema } : {}),
  });
  closeRole = () => server.close();
  const { accounts, clients, oauth, orgs } = server.services;
  progress('dauth is up; minting the code pool');
  const user = await accounts.register({ email: 'bench@example.com', password: 'bench password 1' });
  const { client, clientSecret } = await clients.create({
    ownerUuid: user.userUuid,
    orgId: await orgs.orgForNewApp({ kind: 'user', userId: user.userUuid }, undefined),
    name: 'bench',
    redirectUris: [REDIRECT_URI],
  });
  const full = (await clients.findClient(client.clientId))!;
  const first = await oauth.issueCode({ client: full, userUuid: user.userUuid, redirectUri: REDIRECT_URI });
  const tokens = await oauth.exchangeCode({ client: full, code: first.code, redirectUri: REDIRECT_URI });
  const mint = async (count: number, openid: boolean) => {
    const codes: string[] = [];
    for (let i = 0; i < count; i++) {
      const { code } = await oauth.issueCode({
        client: full,
        userUuid: user.userUuid,
        redirectUri: REDIRECT_URI,
        codeChallenge: pkceChallenge,
        codeChallengeMethod: 'S256',
        ...(openid ? { oidc: { scope: 'openid', nonce: OIDC_NONCE, authTime: Date.now() } } : {}),
      });
      codes.push(code);
      if ((i + 1) % 2000 === 0) progress(`${i + 1} ${openid ? 'openid ' : ''}codes`);
    }
    return codes;
  };
  return {
    ready: true,
    url: server.url,
    accessToken: tokens.accessToken,
    clientId: client.clientId,
    clientSecret,
    codes: ONLY.has('c') && !callgrindEnabled ? await mint(POOL_SIZE, false) : [],
    openidCodes: ONLY.has('f') && !callgrindEnabled ? await mint(POOL_SIZE, true) : [],
  };
}

// ---------------------------------------------------------------------------------------------
// Child: oidc-provider
// ---------------------------------------------------------------------------------------------

/** oidc-provider's storage port (upsert, find, consume, destroy, …) on the same database kind as dauth. */
async function oidcAdapterFactory() {
  const { openDatabase } = await import('../packages/server/src/db/database.js');
  const databaseUrl = process.env.DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'oidc-bench-'));
  const handle = openDatabase({
    databaseUrl,
    sqlitePath: path.join(dataDir, 'oidc.sqlite'),
    ...(process.env.BENCH_SCHEMA ? { pgSchema: process.env.BENCH_SCHEMA } : {}),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const db = handle.db as any;
  await sql`create table if not exists oidc_payloads (
      id varchar(200) not null,
      kind varchar(64) not null,
      payload text not null,
      grant_id varchar(200),
      user_code varchar(200),
      uid varchar(200),
      expires_at bigint,
      consumed_at bigint,
      primary key (id, kind))`.execute(db);
  await sql`create index if not exists oidc_payloads_grant on oidc_payloads (grant_id)`.execute(db);

  type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string };
  const parse = (row: {
    payload: string;
    consumed_at: number | string | null;
    expires_at: number | string | null;
  }) => {
    if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) return undefined;
    const payload = JSON.parse(row.payload) as Payload;
    if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000);
    return payload;
  };

  return class KyselyAdapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number) {
      const values = {
        id,
        kind: this.kind,
        payload: JSON.stringify(payload),
        grant_id: payload.grantId ?? null,
        user_code: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expires_at: expiresIn ? Date.now() + expiresIn * 1000 : null,
        consumed_at: null,
      };
      await db
        .insertInto('oidc_payloads')
        .values(values)
        .onConflict((oc: { columns: (c: string[]) => { doUpdateSet: (v: object) => unknown } }) =>
          oc.columns(['id', 'kind']).doUpdateSet({ payload: values.payload, expires_at: values.expires_at }),
        )
        .execute();
    }

    async #findBy(column: string, value: string) {
      const row = await db
        .selectFrom('oidc_payloads')
        .select(['payload', 'consumed_at', 'expires_at'])
        .where('kind', '=', this.kind)
        .where(column, '=', value)
        .executeTakeFirst();
      return row ? parse(row) : undefined;
    }

    find(id: string) {
      return this.#findBy('id', id);
    }

    findByUserCode(userCode: string) {
      return this.#findBy('user_code', userCode);
    }

    findByUid(uid: string) {
      return this.#findBy('uid', uid);
    }

    async consume(id: string) {
      await db
        .updateTable('oidc_payloads')
        .set({ consumed_at: Date.now() })
        .where('id', '=', id)
        .where('kind', '=', this.kind)
        .execute();
    }

    async destroy(id: string) {
      await db.deleteFrom('oidc_payloads').where('id', '=', id).where('kind', '=', this.kind).execute();
    }

    async revokeByGrantId(grantId: string) {
      await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).execute();
    }
  };
}

async function serveOidc(): Promise<ReadyMessage> {
  // oidc-provider ships no type declarations; it is used through its documented API only.
  const oidcModule = 'oidc-provider';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const { default: Provider } = (await import(oidcModule)) as { default: any };
  const { exportJWK, generateKeyPair } = await import('jose');
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientSecret = randomBytes(32).toString('base64url');
  const resource = 'urn:dauth:api';
  const Adapter = await oidcAdapterFactory();
  const provider = new Provider(issuer, {
    adapter: Adapter,
    jwks: { keys: [signingKey] },
    clients: [
      {
        client_id: 'bench',
        client_secret: clientSecret,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    findAccount: async (_ctx: unknown, accountId: string) => ({
      accountId,
      claims: async () => ({ sub: accountId }),
    }),
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true },
      // Like dauth: ES256 JWT access tokens of one hour for the default resource.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'api',
          audience: resource,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    // Like dauth: every code exchange also returns a refresh token.
    issueRefreshToken: async () => true,
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 600, AccessToken: 3600, RefreshToken: 30 * 24 * 3600, Grant: 30 * 24 * 3600 },
  } as never);
  provider.proxy = false;

  progress('oidc-provider configured; minting the code pool');
  // The pool: one grant per code, as dauth does.
  const client = await provider.Client.find('bench');
  const accountId = '1000001';
  // With `openid` the grant also holds the OIDC scope and the code a nonce and an auth time, so the
  // token answer carries an ID token (signed ES256, like dauth's).
  const mint = async (count: number, openid: boolean) => {
    const codes: string[] = [];
    for (let i = 0; i < count; i++) {
      const grant = new provider.Grant({ accountId, clientId: 'bench' });
      grant.addResourceScope(resource, 'api');
      if (openid) grant.addOIDCScope('openid');
      const grantId = await grant.save();
      const code = new provider.AuthorizationCode({
        accountId,
        client,
        grantId,
        redirectUri: REDIRECT_URI,
        scope: openid ? 'openid api' : 'api',
        resource,
        codeChallenge: pkceChallenge,
        codeChallengeMethod: 'S256',
        ...(openid ? { nonce: OIDC_NONCE, authTime: Math.floor(Date.now() / 1000) } : {}),
      } as never);
      codes.push(await code.save());
    }
    return codes;
  };
  const codes = ONLY.has('d') ? await mint(POOL_SIZE, false) : [];
  const openidCodes = ONLY.has('g') ? await mint(POOL_SIZE, true) : [];
  // A live opaque access token to introspect (JWT access tokens are not introspectable there).
  const grant = new provider.Grant({ accountId, clientId: 'bench' });
  grant.addOIDCScope('openid');
  const grantId = await grant.save();
  const accessToken = await new provider.AccessToken({
    accountId,
    client,
    grantId,
    gty: 'authorization_code',
    scope: 'openid',
  } as never).save();

  await new Promise<void>((resolve) => {
    const httpServer = provider.listen(port, '127.0.0.1', () => resolve());
    httpServer.keepAliveTimeout = 10_000;
  });
  return { ready: true, url: issuer, clientSecret, codes, openidCodes, accessToken };
}

// ---------------------------------------------------------------------------------------------
// Parent: orchestration and measurement
// ---------------------------------------------------------------------------------------------

interface Started {
  child: ChildProcess;
  info: ReadyMessage;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function startRole(role: string, env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    // Node itself, or valgrind running node with BENCH_CALLGRIND=1 (fork's IPC channel passes through it).
    const measured = measuredCommand(role, [
      '--conditions=development',
      '--import',
      'tsx',
      // BENCH_PROFILE=<dir>: write a V8 CPU profile of every server process there.
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      // BENCH_NODE_ARGS: more flags for every server process, e.g. "--trace-gc" (as bench:content takes them).
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ]);
    const child = fork(thisFile, ['--role', role], {
      execPath: measured.command,
      execArgv: measured.args,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    child.once('message', (message) => resolve({ child, info: message as ReadyMessage }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code} before it was ready`)));
  });
}

function stop({ child }: Started): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface Measurement {
  name: string;
  seconds: number;
  rps: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /**
   * The server process's CPU time (user + system, from /proc) per completed request, in µs, when
   * known: a neighbour's load changes it far less than it changes req/s.
   */
  cpuUsPerRequest?: number;
}

/** Linux's USER_HZ: /proc counts CPU time in these ticks. */
const CLOCK_TICKS = 100;

/** User + system CPU seconds a process has used so far (Linux /proc; undefined elsewhere). */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

async function measure(
  name: string,
  options: autocannon.Options,
  server?: ChildProcess,
): Promise<Measurement> {
  const cpuBefore = cpuSecondsOf(server?.pid);
  const result = await autocannon({ connections: CONNECTIONS, ...options });
  const cpuAfter = cpuSecondsOf(server?.pid);
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  const m: Measurement = {
    name,
    seconds,
    // Completed requests over wall time (per-second averages mislead for runs of a fixed amount).
    rps: result.requests.total / seconds,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ...(cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
      ? { cpuUsPerRequest: ((cpuAfter - cpuBefore) * 1e6) / result.requests.total }
      : {}),
  };
  if (m.non2xx > 0 || m.errors > 0) {
    throw new Error(
      `${name}: ${m.non2xx} non-2xx answers and ${m.errors} errors; the figures would be meaningless`,
    );
  }
  return m;
}

/** One exchange by hand first: a misconfiguration shows its error body instead of a count of failures. */
async function probe(url: string, body: Record<string, string>): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });
  if (!res.ok) throw new Error(`probe of ${url} failed: ${res.status} ${await res.text()}`);
}

/** The probe of an OpenID exchange: besides a 200, the answer must carry an id_token (or the run measures the wrong work). */
async function probeIdToken(url: string, body: Record<string, string>): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });
  const text = await res.text();
  if (!res.ok || typeof (JSON.parse(text) as { id_token?: unknown }).id_token !== 'string') {
    throw new Error(`probe of ${url} returned no id_token: ${res.status} ${text}`);
  }
}

/** A POST whose body takes the next code of the pool for every request. */
function codeExchange(
  url: string,
  pool: string[],
  body: (code: string) => Record<string, string>,
): autocannon.Options {
  let next = 0;
  return {
    url,
    amount: pool.length,
    // A fixed-amount run ends at the next sampling tick; tick often so the wall time is exact.
    sampleInt: 20,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest: (request) => {
          const code = pool[next++];
          if (code === undefined) throw new Error('code pool exhausted');
          return { ...request, body: new URLSearchParams(body(code)).toString() };
        },
      },
    ],
  };
}

type RunId = 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g';

/**
 * BENCH_CALLGRIND=1: instructions per request of the bare route, validate and dauth's `/healthz`
 * (`compareInstructionCounts`); the ratio bare ÷ validate is the target's, counted instead of timed.
 */
async function countValidateInstructions(): Promise<void> {
  const started: Started[] = [];
  try {
    const bare = await startRole('bare', {});
    started.push(bare);
    const dauth = await startRole('dauth', {});
    started.push(dauth);
    const token = (dauth.info as ReadyMessage & { accessToken: string }).accessToken;
    const counts = await compareInstructionCounts(
      {
        bare: { url: `${bare.info.url}/json`, pid: bare.child.pid! },
        validate: {
          url: `${dauth.info.url}/v1/oauth/validate`,
          pid: dauth.child.pid!,
          headers: { authorization: `Bearer ${token}` },
        },
        healthz: { url: `${dauth.info.url}/healthz`, pid: dauth.child.pid! },
      },
      REPEAT,
    );
    const mean = counts.perRequest;
    console.log(
      JSON.stringify({
        bench: 'validate: instructions per request (callgrind)',
        ...instructionCountFields(counts),
        instructions_per_request: mean,
        bare_vs_validate: Number((mean.bare / mean.validate).toFixed(2)),
        bare_vs_healthz: Number((mean.bare / mean.healthz).toFixed(2)),
      }),
    );
  } finally {
    for (const s of started) await stop(s);
  }
}

async function main(): Promise<void> {
  if (callgrindEnabled) return countValidateInstructions();
  const databaseUrl = process.env.DATABASE_URL;
  const dialect = databaseUrl ? 'PostgreSQL' : 'SQLite (embedded default)';
  const only = ONLY;
  console.log(
    `dauth HTTP benchmark: ${dialect}, ${CONNECTIONS} connections, ${DURATION_SECONDS} s runs, ` +
      `${CODE_POOL} codes per exchange run, median of ${REPEAT}`,
  );
  console.log(
    `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})\n`,
  );
  const schemas: string[] = [];
  const envFor = async (): Promise<Record<string, string>> => {
    if (!databaseUrl) return {};
    const schema = await createSchema(databaseUrl);
    schemas.push(schema);
    return { BENCH_SCHEMA: schema };
  };
  const results = new Map<RunId, Measurement>();
  const timed = { duration: DURATION_SECONDS };
  const warm = { duration: 2 };
  const rounds = new Map<RunId, Measurement[]>();
  const round = async (id: RunId, name: string, options: autocannon.Options, server?: Started) => {
    const m = await measure(name, options, server?.child);
    const cpu =
      m.cpuUsPerRequest === undefined ? '' : `, server CPU ${m.cpuUsPerRequest.toFixed(1)} µs/request`;
    progress(`${name}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99} ms${cpu}`);
    rounds.set(id, [...(rounds.get(id) ?? []), m]);
  };
  const started: Started[] = [];
  try {
    // Every server stays up (an idle one costs nothing) so that the rounds of a pair can alternate
    // (a, b, e, a, b, e…): a change in background load then hits both sides alike instead of skewing
    // the ratio.
    const bare = only.has('a') ? await startRole('bare', {}) : undefined;
    if (bare) started.push(bare);
    const dauth = await startRole('dauth', await envFor());
    started.push(dauth);
    const oidc = await startRole('oidc', await envFor());
    started.push(oidc);
    progress(
      `server pids: ${bare ? `bare ${bare.child.pid}, ` : ''}dauth ${dauth.child.pid}, oidc-provider ${oidc.child.pid}`,
    );
    const d = dauth.info as ReadyMessage & {
      accessToken: string;
      clientId: string;
      clientSecret: string;
      codes: string[];
      openidCodes: string[];
    };
    const o = oidc.info as ReadyMessage & {
      clientSecret: string;
      codes: string[];
      openidCodes: string[];
      accessToken: string;
    };

    const validate = {
      url: `${d.url}/v1/oauth/validate`,
      headers: { authorization: `Bearer ${d.accessToken}` },
      ...timed,
    };
    const introspect = {
      url: `${o.url}/token/introspection`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: o.accessToken,
        client_id: 'bench',
        client_secret: o.clientSecret,
      }).toString(),
      ...timed,
    };
    const bareRoute = bare ? { url: `${bare.info.url}/json`, ...timed } : undefined;
    if (bareRoute) await measure('warm-up', { ...bareRoute, ...warm });
    if (only.has('b')) await measure('warm-up', { ...validate, ...warm });
    if (only.has('e')) await measure('warm-up', { ...introspect, ...warm });
    for (let r = 0; r < REPEAT; r++) {
      if (bareRoute) await round('a', 'a) bare Fastify JSON route', bareRoute, bare);
      if (only.has('b')) await round('b', 'b) dauth GET /v1/oauth/validate', validate, dauth);
      if (only.has('e')) await round('e', 'e) oidc-provider POST /token/introspection', introspect, oidc);
    }

    const dauthBody = (code: string) => ({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkceVerifier,
      client_id: d.clientId,
      client_secret: d.clientSecret,
    });
    const oidcBody = (code: string) => ({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkceVerifier,
      client_id: 'bench',
      client_secret: o.clientSecret,
    });
    const dauthToken = `${d.url}/oauth/token`;
    const oidcToken = `${o.url}/token`;
    if (only.has('c')) {
      await probe(dauthToken, dauthBody(d.codes.pop()!));
      await measure('warm-up', codeExchange(dauthToken, d.codes.slice(0, WARMUP_CODES), dauthBody));
    }
    if (only.has('d')) {
      await probe(oidcToken, oidcBody(o.codes.pop()!));
      await measure('warm-up', codeExchange(oidcToken, o.codes.slice(0, WARMUP_CODES), oidcBody));
    }
    for (let r = 0; r < REPEAT; r++) {
      if (only.has('c')) {
        await round(
          'c',
          'c) dauth POST /oauth/token (code + PKCE)',
          codeExchange(dauthToken, poolSlice(d.codes, r), dauthBody),
          dauth,
        );
      }
      if (only.has('d')) {
        await round(
          'd',
          'd) oidc-provider POST /token (code + PKCE)',
          codeExchange(oidcToken, poolSlice(o.codes, r), oidcBody),
          oidc,
        );
      }
    }

    // OpenID Connect: the same exchange for codes of `scope=openid` authorizations (an id_token each).
    if (only.has('f')) {
      await probeIdToken(dauthToken, dauthBody(d.openidCodes.pop()!));
      await measure('warm-up', codeExchange(dauthToken, d.openidCodes.slice(0, WARMUP_CODES), dauthBody));
    }
    if (only.has('g')) {
      await probeIdToken(oidcToken, oidcBody(o.openidCodes.pop()!));
      await measure('warm-up', codeExchange(oidcToken, o.openidCodes.slice(0, WARMUP_CODES), oidcBody));
    }
    for (let r = 0; r < REPEAT; r++) {
      if (only.has('f')) {
        await round(
          'f',
          'f) dauth POST /oauth/token (code + PKCE, openid: id_token)',
          codeExchange(dauthToken, poolSlice(d.openidCodes, r), dauthBody),
          dauth,
        );
      }
      if (only.has('g')) {
        await round(
          'g',
          'g) oidc-provider POST /token (code + PKCE, openid: id_token)',
          codeExchange(oidcToken, poolSlice(o.openidCodes, r), oidcBody),
          oidc,
        );
      }
    }
  } finally {
    for (const s of started) await stop(s);
    for (const schema of schemas) await dropSchema(databaseUrl!, schema).catch(() => undefined);
  }
  // The median round of each run (by throughput).
  for (const [id, list] of rounds) {
    const sorted = [...list].sort((x, y) => x.rps - y.rps);
    results.set(id, sorted[Math.floor(sorted.length / 2)]!);
  }

  console.log('| run | req/s | p99 latency (ms) | requests | seconds | server CPU (µs/request) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of results.values()) {
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p99.toFixed(1)} | ${r.requests} | ${r.seconds.toFixed(2)} | ${r.cpuUsPerRequest?.toFixed(1) ?? '–'} |`,
    );
  }
  const rps = (id: RunId) => results.get(id)?.rps;
  const targets: { label: string; x: RunId; y: RunId; need: number }[] = databaseUrl
    ? [
        { label: 'c ≥ d (PostgreSQL)', x: 'c', y: 'd', need: 1 },
        { label: 'f ≥ g (PostgreSQL)', x: 'f', y: 'g', need: 1 },
      ]
    : [
        // Issue 43 (was 0.7 since issue 14).
        { label: 'b ≥ 0.8 × a', x: 'b', y: 'a', need: 0.8 },
        { label: 'b ≥ 3 × e', x: 'b', y: 'e', need: 3 },
        { label: 'c ≥ 1.5 × d', x: 'c', y: 'd', need: 1.5 },
        { label: 'f ≥ 1.5 × g (openid)', x: 'f', y: 'g', need: 1.5 },
      ];
  console.log('');
  let ok = true;
  for (const t of targets) {
    const x = rps(t.x);
    const y = rps(t.y);
    if (x === undefined || y === undefined) continue;
    const pass = x / y >= t.need;
    ok &&= pass;
    console.log(`${pass ? 'PASS' : 'MISS'}  ${t.label}: ratio ${(x / y).toFixed(2)}`);
  }
  // The same ratio by server CPU (median µs per request of each run's rounds): what one core would give
  // each alone, far less moved by a neighbour's load than req/s (docs/performance-http.md, Round 5).
  const medianCpu = (id: RunId) => {
    const cpu = (rounds.get(id) ?? []).flatMap((r) =>
      r.cpuUsPerRequest === undefined ? [] : [r.cpuUsPerRequest],
    );
    return cpu.length === 0 ? undefined : cpu.sort((p, q) => p - q)[Math.floor(cpu.length / 2)];
  };
  const [cpuA, cpuB] = [medianCpu('a'), medianCpu('b')];
  if (cpuA !== undefined && cpuB !== undefined) {
    console.log(
      `      b ÷ a by server CPU: ${cpuA.toFixed(1)} ÷ ${cpuB.toFixed(1)} µs/request = ${(cpuA / cpuB).toFixed(2)}`,
    );
  }
  writeBenchSummary({
    bench: 'http',
    database: databaseUrl ? 'postgres' : 'sqlite',
    seconds: DURATION_SECONDS,
    codes_per_round: CODE_POOL,
    repeat: REPEAT,
    // The median round of each run, and every round in the order run (rounds of paired runs alternate).
    runs: Object.fromEntries(
      [...results].map(([id, m]) => [
        id,
        {
          name: m.name,
          rps: Math.round(m.rps),
          p99_ms: m.p99,
          rounds: rounds.get(id)!.map((r) => Math.round(r.rps)),
          // The server's CPU time per request, round by round (µs; /proc, Linux only).
          cpu_us_per_request: rounds
            .get(id)!
            .map((r) => (r.cpuUsPerRequest === undefined ? null : Number(r.cpuUsPerRequest.toFixed(1)))),
        },
      ]),
    ),
    pass: ok,
  });
  process.exitCode = ok ? 0 : 1;
}

/** The codes of one measured round (after the warm-up codes). */
function poolSlice(codes: string[], round: number): string[] {
  const from = WARMUP_CODES + round * CODE_POOL;
  return codes.slice(from, from + CODE_POOL);
}

// ---------------------------------------------------------------------------------------------

/** What a role must close before it exits (the dauth role's server and embedded chain). */
let closeRole: () => Promise<void> = async () => undefined;

const roleIndex = process.argv.indexOf('--role');
if (roleIndex >= 0) {
  const role = process.argv[roleIndex + 1];
  const serve =
    role === 'bare' ? serveBare : role === 'dauth' ? serveDauth : role === 'oidc' ? serveOidc : undefined;
  if (!serve) throw new Error(`unknown role ${role}`);
  // A dauth role closes its server first: an exit at once would leave its embedded anvil running.
  process.on('SIGTERM', () => void closeRole().finally(() => process.exit(0)));
  serve().then(
    (ready) => process.send?.(ready),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
