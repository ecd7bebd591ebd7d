import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordStrength, STRENGTH_CHECKED_LENGTH } from '../../src/services/defense/passwordStrength.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, createClient, createUser, post } from '../oauth/support.js';

/**
 * Decisions §9 "Weak passwords": a zxcvbn score below PASSWORD_MIN_SCORE (default 2) with the e-mail and
 * nickname as user inputs, or a password of the common-password list, is refused at sign-up, a guest's
 * upgrade, reset and change with 400 `weak_password` and a hint; nothing changes.
 */
describe('weak passwords', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMITS: 'login_address=1000/1m,password_reset=1000/1m' } });
  });
  afterAll(async () => server?.close());

  const email = () => `weak${randomBytes(5).toString('hex')}@example.com`;
  const expectWeak = async (res: Response, field: string) => {
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string; field: string };
    expect(body).toMatchObject({ success: false, error: 'weak_password', field });
    expect(body.message.length).toBeGreaterThan(20);
    return body.message;
  };

  it('sign-up: a common password, a guessable one and one made of the e-mail are refused; a passphrase is not', async () => {
    const address = email();
    const common = await post(`${server.url}/v1/dev-user/register`, {
      email: address,
      password: 'password123',
    });
    expect(await expectWeak(common, 'password')).toMatch(/common/);
    const guessable = await post(`${server.url}/v1/dev-user/register`, {
      email: address,
      password: 'aaaaaaaaaaaa',
    });
    expect(await expectWeak(guessable, 'password')).toMatch(/Repeated characters/);
    // "zorbanix" is in no dictionary; it is the e-mail's local part, a user input.
    const own = `zorbanix${randomBytes(3).toString('hex')}`;
    const ofEmail = await post(`${server.url}/v1/dev-user/register`, {
      email: `${own}@example.com`,
      password: `${own}1`,
    });
    await expectWeak(ofEmail, 'password');
    const ofNickname = await post(`${server.url}/v1/dev-user/register`, {
      email: address,
      nickname: own,
      password: `${own}!`,
    });
    await expectWeak(ofNickname, 'password');
    // Nothing was created: the address is still free for a good password.
    const good = await post(`${server.url}/v1/dev-user/register`, {
      email: address,
      password: 'tangerine lighthouse orbit',
    });
    expect(good.status).toBe(201);
  });

  it('reset: a weak new password is refused before the mailed code is spent', async () => {
    const user = await createUser(server.url);
    const since = Date.now();
    expect(
      (await post(`${server.url}/v1/dev-user/password/reset-request`, { email: user.email })).status,
    ).toBe(200);
    const { text } = await waitForMail(server.dataDir, user.email, { includes: 'reset code', since });
    const code = /reset code is (\d{8})/.exec(text)![1]!;
    const weak = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code,
      new_password: 'qwertyuiop',
    });
    await expectWeak(weak, 'new_password');
    // The same code still works with a strong password, and the old password no longer does.
    const strong = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: user.email,
      code,
      new_password: 'marmalade harbour sextant',
    });
    expect(strong.status).toBe(200);
    const old = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
    });
    expect(old.status).toBe(401);
  });

  it('change: a weak new password is refused and the current one keeps working', async () => {
    const user = await createUser(server.url);
    const weak = await post(
      `${server.url}/v1/dev-user/password`,
      { current_password: user.password, new_password: '12345678' },
      bearer(user.loginToken),
    );
    await expectWeak(weak, 'new_password');
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
    });
    expect(login.status).toBe(200);
  });

  it("a guest's upgrade by e-mail and password refuses a weak password", async () => {
    const dev = await createUser(server.url);
    const app = await createClient(server.url, dev, ['http://127.0.0.1:9/cb']);
    const guest = (await (
      await post(`${server.url}/v1/dev-user/guest`, { client_id: app.clientId })
    ).json()) as {
      token: string;
    };
    const weak = await post(
      `${server.url}/v1/dev-user/guest/upgrade`,
      { email: email(), password: 'iloveyou1' },
      bearer(guest.token),
    );
    await expectWeak(weak, 'password');
  });

  it('checks at most STRENGTH_CHECKED_LENGTH characters, so a long password costs little', () => {
    const strength = new PasswordStrength(2);
    strength.weakness('warm-up passphrase', []);
    const long = 'kJ8#mP2$qL9!wN4@'.repeat(64);
    const started = performance.now();
    expect(strength.weakness(long, ['someone@example.com'])).toBeUndefined();
    // The whole thing takes milliseconds; without the cap it takes seconds on this machine.
    expect(performance.now() - started).toBeLessThan(250);
    expect(STRENGTH_CHECKED_LENGTH).toBeLessThanOrEqual(64);
    // PASSWORD_MIN_SCORE=0 keeps only the common-password list.
    const lenient = new PasswordStrength(0);
    expect(lenient.weakness('aaaaaaaaaaaa', [])).toBeUndefined();
    expect(lenient.weakness('Password1', [])).toMatch(/common/);
  });
});
