/**
 * Passkey sign-ins beside password sign-ins (docs/players.md, issue 25).
 *
 * A real dauth (child process, embedded chain, SQLite, production scrypt cost unless SCRYPT_LOG_N is
 * set) with `--users` accounts, each with a password and a passkey registered by a software P-256
 * authenticator (the tests' own, packages/server/test/players/softAuthenticator.ts). Then, one after
 * the other for `--seconds` each, `--concurrency` closed-loop clients sign in:
 * - passkey: `POST /v1/dev-user/passkeys/authentication-options`, sign, `POST /v1/dev-user/passkeys/login`;
 * - password: `POST /v1/dev-user/login_devuser`.
 * Reported: sign-ins per second and the server's CPU per sign-in (from /proc, all its threads).
 *
 *   npm run bench:passkeys
 *   npm run bench:passkeys -- --concurrency 16 --seconds 10 --users 32
 *
 * TRUST_PROXY=true and an X-Forwarded-For per simulated client keep per-address limits per client.
 */
import { parseArgs } from 'node:util';
import { SoftAuthenticator } from '../packages/server/test/players/softAuthenticator.js';
import { processCpuSeconds, startDauthProcess } from './dauthProcess.js';
import { machineInfo, writeBenchSummary } from './summary.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '10' },
    users: { type: 'string', default: '32' },
  },
});
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const userCount = Number(values.users);
const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const PASSWORD = 'correct horse battery staple';

const startDauth = () =>
  startDauthProcess('passkeys', {
    TRUST_PROXY: 'true',
    RATE_LIMITS:
      'login=100000/1m,login_address=100000/1m,register=100000/1m,passkey_options=100000/1m,passkey_login=100000/1m,passkey_register=100000/1m',
  });

async function post<T>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

interface Account {
  email: string;
  authenticator: SoftAuthenticator;
  forwardedFor: string;
}

async function setUp(base: string): Promise<Account[]> {
  // The relying party is PUBLIC_URL's, by default http://localhost:$PORT (docs/players.md): the page a
  // player's browser signs for is on localhost, whatever address this client reaches the server at.
  const site = new URL(base);
  site.hostname = 'localhost';
  const origin = site.origin;
  const accounts: Account[] = [];
  for (let i = 0; i < userCount; i++) {
    const email = `bench-${i}-${Date.now()}@example.com`;
    const forwardedFor = `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
    const h = { 'x-forwarded-for': forwardedFor };
    await post(`${base}/v1/dev-user/register`, { email, password: PASSWORD }, h);
    // Registering a passkey is first-party (decisions §9): the console's binding.
    const login = await post<{ token: string }>(
      `${base}/v1/dev-user/login_devuser`,
      { email, password: PASSWORD, client_id: 'dauth:console' },
      h,
    );
    const auth = { ...h, authorization: `Bearer ${login.body.token}` };
    const options = await post<{ challenge: string; rp: { id: string }; user: { id: string } }>(
      `${base}/v1/dev-user/passkeys/registration-options`,
      {},
      auth,
    );
    const authenticator = new SoftAuthenticator(site.hostname, origin);
    const registered = await post(`${base}/v1/dev-user/passkeys`, authenticator.register(options.body), auth);
    if (registered.status !== 201)
      throw new Error(`passkey registration failed: ${JSON.stringify(registered.body)}`);
    accounts.push({ email, authenticator, forwardedFor });
  }
  return accounts;
}

async function run(
  name: string,
  pid: number,
  accounts: Account[],
  signIn: (account: Account) => Promise<boolean>,
) {
  let done = 0;
  let failed = 0;
  const cpuStart = processCpuSeconds(pid);
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      // Each worker owns its accounts, so one authenticator's counter is never raced.
      const mine = accounts.filter((_, i) => i % concurrency === worker);
      for (let n = 0; performance.now() < end; n++) {
        if (await signIn(mine[n % mine.length]!)) done++;
        else failed++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpu = processCpuSeconds(pid) - cpuStart;
  return {
    name,
    sign_ins_per_second: round(done / elapsed, 1),
    server_cpu_ms_per_sign_in: round((cpu * 1000) / Math.max(done, 1)),
    failed,
  };
}

const dauth = await startDauth();
try {
  const accounts = await setUp(dauth.url);
  const passkey = await run('passkey', dauth.pid, accounts, async (account) => {
    const h = { 'x-forwarded-for': account.forwardedFor };
    const options = await post<{ challenge: string }>(
      `${dauth.url}/v1/dev-user/passkeys/authentication-options`,
      {},
      h,
    );
    const res = await post(
      `${dauth.url}/v1/dev-user/passkeys/login`,
      account.authenticator.assert(options.body.challenge),
      h,
    );
    return res.status === 200;
  });
  const password = await run('password', dauth.pid, accounts, async (account) => {
    const res = await post(
      `${dauth.url}/v1/dev-user/login_devuser`,
      { email: account.email, password: PASSWORD },
      { 'x-forwarded-for': account.forwardedFor },
    );
    return res.status === 200;
  });
  const summary = {
    settings: {
      concurrency,
      seconds,
      users: userCount,
      scrypt_log_n: process.env.SCRYPT_LOG_N ?? 'default (17)',
    },
    results: [passkey, password],
  };
  console.log(JSON.stringify({ machine: machineInfo(), ...summary }, null, 2));
  writeBenchSummary(summary);
} finally {
  await dauth.stop();
}
