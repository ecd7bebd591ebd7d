/**
 * A launch-day flood against a game: guest sign-ups through the bot challenge and each guest's first
 * sponsored operation under the game's sponsorship policy (issue 39, docs/security.md "Bot challenge",
 * docs/sponsorship.md, figures in docs/performance.md).
 *
 * A real dauth (child process, embedded chain, SQLite) with `BOT_CHALLENGE=guest` and one app. A probe
 * guest makes the operation once to learn its gas (G); the app then gets a per-app policy in multiples of
 * it: `daily_gas_per_guest` 1.5 G (one first operation per guest), `daily_gas_per_player` 10 G,
 * `daily_gas_app` `--app-ops` × G (a day budget of that many first operations) and
 * `ops_per_player_per_minute` 2. For `--seconds` (or until `--guests` guests exist), `--concurrency`
 * attacker workers create guests from `--addresses` loopback addresses (127.1.x.y, 250 to a /24, as
 * X-Forwarded-For with TRUST_PROXY), each guest after fetching and solving a challenge (SHA-256 brute
 * force, as the SDKs do), then make the guest's first sponsored operation: a PIN set-up
 * (`POST /v1/pin/register`, a guest has no wallet before it) and a PIN operation under the guest's
 * app-bound token (`POST /v1/pin/verify` with one empty call to an outside address: it deploys the
 * wallet, the cheapest real operation a guest can make, no token or session-key grant needed), and a
 * second operation that the per-guest budget must refuse. Beside them an honest player from a network of
 * its own creates a guest and makes its first operation every `--honest-every` ms. Reported: guests the
 * attacker got and at what rate, the difficulty it met, the hashes it spent; the operations sponsored and
 * refused (by which budget) for the attacker and the honest players; the gas sponsored (the app's day
 * total from `GET …/sponsorship`, split between attacker and honest players by their operations, every
 * first operation being charged the same gas limits); the server's CPU per request (from /proc), and the
 * CPU per challenge verification measured in-process (`BotChallengeService.verify`).
 *
 * The issue's full size (10,000 guests, each with an operation) does not fit a short run on a 2-core
 * machine: each operation is a PIN set-up and a signed, mined operation on the embedded chain, so the
 * run is bounded by `--seconds` (300) and reports how many guests it reached.
 *
 *   npm run bench:flood
 *   npm run bench:flood -- --quick               # 40 s, 100 addresses, a 30-operation app budget
 *   npm run bench:flood -- --seconds 600 --concurrency 32 --app-ops 1000
 *   npm run bench:flood -- --no-operations       # the guest sign-ups alone, as before the policy
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { BotChallengeService } from '../packages/server/src/services/defense/botChallenge.js';
import { processCpuSeconds, startDauthProcess } from './dauthProcess.js';
import { machineInfo, writeBenchSummary } from './summary.js';

const { values } = parseArgs({
  options: {
    guests: { type: 'string', default: '10000' },
    addresses: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '300' },
    'honest-every': { type: 'string', default: '1000' },
    'app-ops': { type: 'string', default: '250' },
    'no-operations': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});
const quick = values.quick;
const maxGuests = quick ? 300 : Number(values.guests);
const addressCount = quick ? 100 : Number(values.addresses);
const concurrency = Number(values.concurrency);
const seconds = quick ? 40 : Number(values.seconds);
const honestEvery = Number(values['honest-every']);
const appOps = quick ? 30 : Number(values['app-ops']);
const operations = !values['no-operations'];
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

function startDauth() {
  return startDauthProcess('flood', {
    TRUST_PROXY: 'true',
    BOT_CHALLENGE: 'guest',
    SCRYPT_LOG_N: '14',
  });
}

async function send(
  url: string,
  method: 'GET' | 'POST' | 'PUT',
  body: unknown,
  from: string,
  bearer?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: {
      'x-forwarded-for': from,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Challenge {
  algorithm: string;
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

/** The SDKs' solver: SHA-256(salt + n) for n = 0.. until it matches; the solution and the hashes spent. */
function solve(c: Challenge): { altcha: string; hashes: number } {
  for (let n = 0; n <= c.maxnumber; n++) {
    if (createHash('sha256').update(`${c.salt}${n}`).digest('hex') === c.challenge) {
      const { algorithm, challenge, salt, signature } = c;
      const altcha = Buffer.from(
        JSON.stringify({ algorithm, challenge, number: n, salt, signature }),
      ).toString('base64');
      return { altcha, hashes: n + 1 };
    }
  }
  throw new Error('unsolvable challenge');
}

/** The server's CPU per verification, in-process: `--quick` 500, else 5,000 solved challenges. */
async function verificationCpu(): Promise<{ microseconds: number }> {
  const spent = new Set<string>();
  const marks = { claimOnce: async (key: string) => !spent.has(key) && Boolean(spent.add(key)) };
  const service = new BotChallengeService(randomBytes(32), ['guest'], marks);
  const count = quick ? 500 : 5_000;
  const solutions: string[] = [];
  for (let i = 0; i < count; i++) solutions.push(solve(await service.issue(1_000)).altcha);
  const before = process.cpuUsage();
  for (const s of solutions) if (!(await service.verify(s))) throw new Error('a solution was refused');
  const used = process.cpuUsage(before);
  return { microseconds: round((used.user + used.system) / count, 1) };
}

const attackers = Array.from(
  { length: addressCount },
  (_, i) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`,
);
/** An outside address the guests' operations call (an empty call: no code there, nothing moves). */
const outside = `0x${'cd'.repeat(20)}`;

const cpu = await verificationCpu();
console.log(`CPU per challenge verification: ${cpu.microseconds} µs`);

/** What one operation came to: sponsored, or refused with which error (and budget). */
type OpOutcome = { ok: true } | { ok: false; reason: string };

const dauth = await startDauth();
try {
  const owner = {
    email: `flood-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench owner passphrase',
  };
  const registered = await send(`${dauth.url}/v1/dev-user/register`, 'POST', owner, '192.0.2.1');
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  const login = await send(`${dauth.url}/v1/dev-user/login_devuser`, 'POST', owner, '192.0.2.1');
  const ownerToken = login.body.token as string;
  const app = await send(
    `${dauth.url}/v1/dev-user/clients`,
    'POST',
    { name: 'Flooded game', redirect_uris: ['https://game.example/cb'] },
    '192.0.2.1',
    ownerToken,
  );
  const clientId = app.body.client_id as string;
  if (!clientId) throw new Error(`client: ${app.status}`);
  const sponsorshipUrl = `${dauth.url}/v1/dev-user/clients/${encodeURIComponent(clientId)}/sponsorship`;
  const sponsorship = async () => {
    const r = await send(sponsorshipUrl, 'GET', undefined, '192.0.2.1', ownerToken);
    if (r.status !== 200) throw new Error(`sponsorship GET: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.today as { gas: number; operations: number; refused: number };
  };

  /** One guest: a challenge, its solution, the sign-up. */
  async function oneGuest(from: string) {
    const started = performance.now();
    const c = await send(
      `${dauth.url}/v1/challenge?client_id=${encodeURIComponent(clientId)}`,
      'GET',
      undefined,
      from,
    );
    if (c.status !== 200) return { ok: false, status: c.status, hashes: 0, maxnumber: 0, ms: 0 };
    const challenge = c.body as unknown as Challenge;
    const { altcha, hashes } = solve(challenge);
    const guest = await send(`${dauth.url}/v1/dev-user/guest`, 'POST', { client_id: clientId, altcha }, from);
    return {
      ok: guest.status === 201,
      status: guest.status,
      hashes,
      maxnumber: challenge.maxnumber,
      ms: performance.now() - started,
      altcha,
      uuid: guest.body.uuid as string | undefined,
      token: guest.body.token as string | undefined,
    };
  }

  const reasonOf = (r: { status: number; body: Record<string, unknown> }) =>
    r.body.error === 'app_sponsorship_exhausted'
      ? String(r.body.budget)
      : `${r.status} ${String(r.body.error ?? 'error')}`;

  /**
   * A guest's first sponsored operation: the PIN set-up that gives the guest its wallet, then a PIN
   * operation (one empty call) under the guest's app-bound token; `again` more operations after it.
   */
  async function guestOperations(from: string, uuid: string, token: string, again: number) {
    const pin = randomBytes(3).toString('hex');
    const salt = randomBytes(32).toString('hex');
    const pinHash = createHash('sha256')
      .update(pin + salt, 'utf8')
      .digest('hex');
    const reg = await send(
      `${dauth.url}/v1/pin/register`,
      'POST',
      { user_uuid: Number(uuid), pin_hash: pinHash, pin_salt: salt },
      from,
      token,
    );
    if (reg.status !== 200)
      return { requests: 1, outcomes: [{ ok: false, reason: `pin set-up ${reasonOf(reg)}` }] };
    const keyShareUser = (reg.body.data as { key_share_user: string }[])[0]!.key_share_user;
    const outcomes: OpOutcome[] = [];
    for (let i = 0; i <= again; i++) {
      const op = await send(
        `${dauth.url}/v1/pin/verify`,
        'POST',
        {
          user_uuid: Number(uuid),
          pin_hash: pinHash,
          pin_salt: salt,
          key_share_user: keyShareUser,
          calls: [{ to: outside, value: '0', data: '0x' }],
        },
        from,
        token,
      );
      outcomes.push(op.status === 200 ? { ok: true } : { ok: false, reason: reasonOf(op) });
    }
    return { requests: 2 + again, outcomes };
  }

  // The probe guest's operation: the gas a first operation is charged (G), before any app budget.
  let opGas = 0;
  if (operations) {
    const probe = await oneGuest('203.0.113.7');
    if (!probe.ok || !probe.uuid || !probe.token) throw new Error(`probe guest: ${probe.status}`);
    const first = await guestOperations('203.0.113.7', probe.uuid, probe.token, 0);
    if (!first.outcomes[0]!.ok) throw new Error(`probe operation refused: ${JSON.stringify(first.outcomes)}`);
    opGas = (await sponsorship()).gas;
    const policy = {
      daily_gas_per_player: 10 * opGas,
      daily_gas_per_guest: Math.floor(1.5 * opGas),
      // The probe's gas is already today's: the flood gets `appOps` first operations.
      daily_gas_app: (appOps + 1) * opGas,
      ops_per_player_per_minute: 2,
    };
    const put = await send(sponsorshipUrl, 'PUT', policy, '192.0.2.1', ownerToken);
    if (put.status !== 200) throw new Error(`sponsorship PUT: ${put.status} ${JSON.stringify(put.body)}`);
    console.log(`A first operation is charged ${opGas} gas; policy ${JSON.stringify(policy)}`);
  }

  const tally = (into: Record<string, number>, reason: string) => {
    into[reason] = (into[reason] ?? 0) + 1;
  };
  const deadline = Date.now() + seconds * 1000;
  const attack = {
    created: 0,
    refused: 0,
    hashes: 0,
    maxnumbers: [] as number[],
    replaysRefused: 0,
    firstSponsored: 0,
    firstRefused: {} as Record<string, number>,
    secondSponsored: 0,
    secondRefused: {} as Record<string, number>,
  };
  const honest = {
    created: 0,
    refused: 0,
    ms: [] as number[],
    sponsored: 0,
    opRefused: {} as Record<string, number>,
    firstRefusalAt: undefined as number | undefined,
  };
  const cpuBefore = processCpuSeconds(dauth.pid);
  let requests = 0;
  let next = 0;
  const startedAt = performance.now();
  const workers = Array.from({ length: concurrency }, async () => {
    while (Date.now() < deadline && attack.created < maxGuests) {
      const from = attackers[next++ % attackers.length]!;
      const r = await oneGuest(from);
      requests += 2;
      attack.hashes += r.hashes;
      attack.maxnumbers.push(r.maxnumber);
      if (r.ok) attack.created++;
      else attack.refused++;
      // Every 50th solution sent again: a replay must be refused.
      if (r.ok && attack.created % 50 === 0 && r.altcha) {
        const replay = await send(
          `${dauth.url}/v1/dev-user/guest`,
          'POST',
          { client_id: clientId, altcha: r.altcha },
          from,
        );
        requests++;
        if (replay.status === 400) attack.replaysRefused++;
      }
      if (operations && r.ok && r.uuid && r.token) {
        const ops = await guestOperations(from, r.uuid, r.token, 1);
        requests += ops.requests;
        const [first, second] = ops.outcomes;
        if (first?.ok) attack.firstSponsored++;
        else if (first) tally(attack.firstRefused, first.reason);
        if (second?.ok) attack.secondSponsored++;
        else if (second) tally(attack.secondRefused, second.reason);
      }
    }
  });
  const player = (async () => {
    let i = 0;
    while (Date.now() < deadline && attack.created < maxGuests) {
      const from = `198.51.${100 + (i % 50)}.${(i++ % 200) + 1}`;
      const r = await oneGuest(from);
      requests += 2;
      if (r.ok) {
        honest.created++;
        honest.ms.push(r.ms);
      } else honest.refused++;
      if (operations && r.ok && r.uuid && r.token) {
        const ops = await guestOperations(from, r.uuid, r.token, 0);
        requests += ops.requests;
        const first = ops.outcomes[0]!;
        if (first.ok) honest.sponsored++;
        else {
          tally(honest.opRefused, first.reason);
          honest.firstRefusalAt ??= (performance.now() - startedAt) / 1000;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, honestEvery));
    }
  })();
  await Promise.all([...workers, player]);
  const elapsed = (performance.now() - startedAt) / 1000;
  const serverCpu = processCpuSeconds(dauth.pid) - cpuBefore;
  const sorted = [...attack.maxnumbers].sort((a, b) => a - b);
  const honestSorted = [...honest.ms].sort((a, b) => a - b);
  const today = operations ? await sponsorship() : undefined;
  // The flood's gas (the probe's taken out), split by sponsored operations: each is charged the same limits.
  const floodGas = today ? today.gas - opGas : 0;
  const sponsoredOps = attack.firstSponsored + attack.secondSponsored + honest.sponsored;
  const attackerGas = sponsoredOps
    ? Math.round((floodGas * (attack.firstSponsored + attack.secondSponsored)) / sponsoredOps)
    : 0;
  const summary = {
    benchmark: 'flood',
    seconds: round(elapsed, 1),
    attacker: {
      addresses: addressCount,
      networks: new Set(attackers.map((a) => a.split('.').slice(0, 3).join('.'))).size,
      workers: concurrency,
      guests_created: attack.created,
      guests_per_minute: round((attack.created / elapsed) * 60, 1),
      refused: attack.refused,
      replays_refused: attack.replaysRefused,
      hashes_spent: attack.hashes,
      maxnumber_first: attack.maxnumbers[0] ?? 0,
      maxnumber_median: sorted[Math.floor(sorted.length / 2)] ?? 0,
      maxnumber_last: attack.maxnumbers.at(-1) ?? 0,
      ...(operations
        ? {
            first_operations_sponsored: attack.firstSponsored,
            first_operations_refused: attack.firstRefused,
            second_operations_sponsored: attack.secondSponsored,
            second_operations_refused: attack.secondRefused,
            gas_sponsored: attackerGas,
          }
        : {}),
    },
    honest: {
      created: honest.created,
      refused: honest.refused,
      p50_ms: round(honestSorted[Math.floor(honestSorted.length / 2)] ?? 0, 0),
      max_ms: round(honestSorted.at(-1) ?? 0, 0),
      ...(operations
        ? {
            operations_sponsored: honest.sponsored,
            operations_refused: honest.opRefused,
            first_refusal_after_seconds:
              honest.firstRefusalAt === undefined ? null : round(honest.firstRefusalAt, 1),
            gas_sponsored: floodGas - attackerGas,
          }
        : {}),
    },
    ...(today
      ? {
          app: {
            gas_per_first_operation: opGas,
            daily_gas_app: (appOps + 1) * opGas,
            day_gas_spent: today.gas,
            day_operations: today.operations,
            day_refused: today.refused,
          },
        }
      : {}),
    server: {
      requests,
      cpu_seconds: round(serverCpu, 2),
      cpu_ms_per_request: round((serverCpu * 1000) / Math.max(1, requests), 3),
      cpu_us_per_verification: cpu.microseconds,
    },
    machine: machineInfo(),
  };
  console.log(JSON.stringify(summary, null, 2));
  writeBenchSummary(summary);
} finally {
  await dauth.stop();
}
