import { randomBytes, randomUUID } from 'node:crypto';
import { solveChallenge } from 'altcha-lib/v1';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createPgSchema } from '../helpers/databases.js';
import {
  postgresAvailable,
  redisAvailable,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from '../helpers/environment.js';
import { mailsTo, waitForMail } from '../helpers/outbox.js';
import { freePort, startTestServer } from '../helpers/server.js';

/**
 * Decisions §9 "Password guessing against one account": failures are counted per account across
 * addresses; after 10 in 15 minutes every sign-in of the account, the right password included, answers
 * 401 `challenge_required` `{methods: ["altcha", "email_code"]}` unless it carries a solved challenge or
 * the code mailed to the owner, who always gets in with it.
 */

interface Replica {
  url: string;
  dataDir: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function login(at: Replica, body: Record<string, unknown>, from: string): Promise<Answer> {
  const res = await fetch(`${at.url}/v1/dev-user/login_devuser`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function signUp(at: Replica): Promise<{ email: string; password: string }> {
  const email = `owner${randomBytes(5).toString('hex')}@example.com`;
  const password = 'violet harbour compass';
  const res = await fetch(`${at.url}/v1/dev-user/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(201);
  return { email, password };
}

/** 50 addresses, each in a network of its own. */
const attackers = Array.from({ length: 50 }, (_, i) => `203.0.${i + 1}.${(i % 200) + 7}`);

/** `count` wrong passwords spread over the 50 addresses (and the replicas), `parallel` at a time. */
async function guess(targets: Replica[], email: string, count: number, parallel = 8): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        answers[i] = await login(
          targets[i % targets.length]!,
          { email, password: `wrong guess number ${i}` },
          attackers[i % attackers.length]!,
        );
      }
    }),
  );
  return answers;
}

/** The code of the newest sign-in mail to `email` in any replica's outbox. */
async function mailedCode(replicas: Replica[], email: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    for (const r of replicas) {
      const mail = mailsTo(r.dataDir, email).find((m) => m.text.includes('sign-in code'));
      if (mail) return /sign-in code is (\d{8})/.exec(mail.text)![1]!;
    }
    if (Date.now() > deadline) throw new Error(`no sign-in code mailed to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function solvedChallenge(at: Replica): Promise<string> {
  const c = (await (await fetch(`${at.url}/v1/challenge`)).json()) as {
    algorithm: string;
    challenge: string;
    salt: string;
    signature: string;
    maxnumber: number;
  };
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
  const { algorithm, challenge, salt, signature } = c;
  return Buffer.from(
    JSON.stringify({ algorithm, challenge, number: solution!.number, salt, signature }),
  ).toString('base64');
}

const refused = (answer: Answer) =>
  answer.status === 401 &&
  answer.body.error === 'challenge_required' &&
  JSON.stringify(answer.body.methods) === JSON.stringify(['altcha', 'email_code']);

describe('account-level guessing defense (one server, in-process counters)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(async () => server?.close());

  it('200 wrong passwords from 50 addresses: after 10, even the right password needs the mailed code or a challenge', async () => {
    const owner = await signUp(server);
    const answers = await guess([server], owner.email, 200);
    const wrong = answers.filter((a) => a.status === 401 && a.body.error === 'invalid_credentials').length;
    // Ten failures, give or take the guesses already in flight when the tenth was counted.
    expect(wrong).toBeGreaterThanOrEqual(10);
    expect(wrong).toBeLessThanOrEqual(10 + 8);
    expect(answers.filter(refused)).toHaveLength(200 - wrong);

    // The owner, from home: the right password alone is refused too (it says nothing about the password).
    const alone = await login(server, owner, '198.51.100.20');
    expect(refused(alone)).toBe(true);
    // One mail with the code, however many refusals there were.
    const code = await mailedCode([server], owner.email);
    expect(mailsTo(server.dataDir, owner.email).filter((m) => m.text.includes('sign-in code'))).toHaveLength(
      1,
    );
    const mail = mailsTo(server.dataDir, owner.email)[0]!.text;
    expect(mail).toContain('Someone is guessing the password');
    expect(mail).toMatch(/Network of the last attempt: (203\.0\.\d+\.0\/24|198\.51\.100\.0\/24)/);

    // An attacker with the code's right format but the wrong digits, or the code without the password: refused.
    const wrongDigits = String((Number(code) + 1) % 100_000_000).padStart(8, '0');
    expect(refused(await login(server, { ...owner, email_code: wrongDigits }, attackers[0]!))).toBe(true);
    const noPassword = await login(
      server,
      { email: owner.email, password: 'still guessing', email_code: code },
      attackers[1]!,
    );
    expect(noPassword).toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });

    // The owner gets in with the code, once.
    const withCode = await login(server, { ...owner, email_code: code }, '198.51.100.20');
    expect(withCode.status).toBe(200);
    expect(withCode.body.token).toEqual(expect.any(String));
    expect(refused(await login(server, { ...owner, email_code: code }, '198.51.100.20'))).toBe(true);
    // Or with a solved challenge (the login page's browser solves one by itself).
    const withChallenge = await login(
      server,
      { ...owner, altcha: await solvedChallenge(server) },
      '198.51.100.20',
    );
    expect(withChallenge.status).toBe(200);
  });

  it('bounds the guesses at a mailed code: five wrong ones kill it', async () => {
    const owner = await signUp(server);
    await guess([server], owner.email, 12, 1);
    expect(refused(await login(server, owner, '198.51.100.30'))).toBe(true);
    const code = await mailedCode([server], owner.email);
    for (let i = 0; i < 5; i++) {
      const wrong = String((Number(code) + 1 + i) % 100_000_000).padStart(8, '0');
      expect(refused(await login(server, { ...owner, email_code: wrong }, attackers[i]!))).toBe(true);
    }
    expect(refused(await login(server, { ...owner, email_code: code }, '198.51.100.30'))).toBe(true);
  });

  it('the login page asks for the code under guessing and lets the owner in with it', async () => {
    const owner = await signUp(server);
    await guess([server], owner.email, 11, 1);
    const dev = await signUp(server);
    const devToken = (await login(server, dev, '192.0.2.9')).body.token as string;
    const app = (await (
      await fetch(`${server.url}/v1/dev-user/clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${devToken}` },
        body: JSON.stringify({ name: 'Guessing test', redirect_uris: ['http://127.0.0.1:9/cb'] }),
      })
    ).json()) as { client_id: string };
    const query = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: 'http://127.0.0.1:9/cb',
      response_type: 'code',
      state: 's',
    });
    const first = await fetch(`${server.url}/oauth/authorize?${query.toString()}`);
    const jar = first.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await first.text())![1]!;
    const submit = (extra: Record<string, string>) =>
      fetch(`${server.url}/oauth/authorize/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: jar,
          'x-forwarded-for': '198.51.100.40',
        },
        body: new URLSearchParams({ ...Object.fromEntries(query), csrf_token: csrf, ...owner, ...extra }),
      });
    const page = await submit({});
    expect(page.status).toBe(401);
    const text = await page.text();
    expect(text).toContain('Too many failed sign-ins for this account');
    expect(text).toContain('name="email_code"');
    // The ALTCHA widget, with its worker allowed by the page's CSP (docs/security.md "Bot challenge").
    expect(text).toMatch(/<altcha-widget\s+name="altcha"/);
    expect(page.headers.get('content-security-policy')).toContain("worker-src 'self'");
    const code = await mailedCode([server], owner.email);
    const signedIn = await submit({ email_code: code });
    expect(signedIn.status).toBe(303);
  });
});

describe.runIf(redisAvailable && postgresAvailable)(
  'account-level guessing defense on two replicas sharing Redis',
  () => {
    const replicas: (RunningServer & Replica)[] = [];
    let drop: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const schema = await createPgSchema();
      drop = schema.drop;
      const publicPort = await freePort();
      for (let i = 0; i < 2; i++) {
        const dataDir = `/tmp/dauth-guessing-${randomUUID()}`;
        const env = {
          HOST: '127.0.0.1',
          PORT: String(await freePort()),
          PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          SCRYPT_LOG_N: '14',
          TRUST_PROXY: 'true',
          RATE_LIMITS: 'login_address=1000/1m',
          DATABASE_URL: TEST_DATABASE_URL,
          REDIS_URL: TEST_REDIS_URL,
          MASTER_KEY: 'ef'.repeat(32),
          ADMIN_API_KEY: 'guessing-admin-key-0123456789',
        };
        const running = await startServer(loadConfig(env), {
          logger: pino({ level: 'silent' }),
          pgSchema: schema.schema,
        });
        replicas.push({ ...running, dataDir });
      }
    });
    afterAll(async () => {
      for (const r of replicas) await r.close();
      await drop?.();
    });

    it('counts the failures of both replicas together, and the code mailed by one opens the other', async () => {
      const [a, b] = replicas as [RunningServer & Replica, RunningServer & Replica];
      const owner = await signUp(a);
      // Alternating replicas: neither alone has seen 10 failures when the defense starts.
      const answers = await guess([a, b], owner.email, 200);
      const wrong = answers.filter((x) => x.body.error === 'invalid_credentials').length;
      expect(wrong).toBeGreaterThanOrEqual(10);
      expect(wrong).toBeLessThanOrEqual(18);
      expect(answers.filter(refused)).toHaveLength(200 - wrong);
      expect(refused(await login(a, owner, '198.51.100.50'))).toBe(true);
      expect(refused(await login(b, owner, '198.51.100.50'))).toBe(true);
      const code = await mailedCode([a, b], owner.email);
      const inAtB = await login(b, { ...owner, email_code: code }, '198.51.100.50');
      expect(inAtB.status).toBe(200);
      // Spent on one replica, refused on the other; a challenge solved at b is accepted once, at a.
      expect(refused(await login(a, { ...owner, email_code: code }, '198.51.100.50'))).toBe(true);
      const altcha = await solvedChallenge(b);
      expect((await login(a, { ...owner, altcha }, '198.51.100.50')).status).toBe(200);
      expect(refused(await login(b, { ...owner, altcha }, '198.51.100.50'))).toBe(true);
      // However the refusals raced on the two replicas, one of them mailed one code.
      const codeMails = (r: Replica) =>
        mailsTo(r.dataDir, owner.email).filter((m) => m.text.includes('sign-in code'));
      expect(codeMails(a).length + codeMails(b).length).toBe(1);
      const holder = codeMails(a).length > 0 ? a : b;
      await waitForMail(holder.dataDir, owner.email, { includes: 'sign-in code' });
    });
  },
);
