import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** RFC 6238 written out here, independent of the service's `otpauth` (as in accounts/mfa.test.ts). */
function totpSecretOf(uri: string): Buffer {
  const url = new URL(uri);
  expect(url.protocol).toBe('otpauth:');
  const base32 = url.searchParams.get('secret')!.replace(/=+$/, '').toUpperCase();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of base32) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}
const stepNow = () => Math.floor(Date.now() / 1000 / 30);
function totpCode(secret: Buffer, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/**
 * The console's Security page in a real Chromium against a real dauth (decisions §9): enrol an
 * authenticator from what the page shows, see the recovery codes, then sign in with the password and the
 * code as a second step.
 */
const server: TestServer | undefined = chromiumAvailable ? await startTestServer() : undefined;

describe.skipIf(!chromiumAvailable)('console Security page', () => {
  let browser: TestBrowser;
  let user: TestUser;
  beforeAll(async () => {
    browser = await launchTestBrowser();
    user = await createUser(server!.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('enrols TOTP from the QR code page, shows the recovery codes once, and signs in again with the code', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server!.url}/console#/signin`);
    await page.fill('#signin-email', user.email);
    await page.fill('#signin-password', user.password);
    await page.click('#signin-submit');
    await page.waitForSelector('#app-list, #apps');

    await page.click('nav a[href="#/security"]');
    await page.waitForSelector('#ways-in-list');
    expect(await page.locator('#ways-in-list li').first().textContent()).toMatch(/^Password: last used /);
    await page.waitForSelector('#session-list');
    expect(await page.textContent('#totp-status')).toMatch(/^Off/);

    await page.click('#totp-start');
    await page.waitForSelector('#totp-qr');
    // The QR code rendered: an SVG with modules drawn.
    expect((await page.getAttribute('#totp-qr path', 'd'))!.length).toBeGreaterThan(1000);
    await page.click('#totp-manual summary');
    const uri = (await page.textContent('#totp-uri'))!;
    const secret = totpSecretOf(uri);
    expect(new URL(uri).searchParams.get('secret')).toBe(await page.textContent('#totp-secret'));

    const confirmedStep = stepNow();
    await page.fill('#totp-code', totpCode(secret, confirmedStep));
    await page.click('#totp-confirm');
    await page.waitForSelector('#recovery-codes');
    const codes = await page.locator('#recovery-codes li').allTextContents();
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    await page.click('#recovery-done');
    await page.locator('#totp-status', { hasText: /^\s*On/ }).waitFor();
    expect(await page.textContent('#totp-status')).toContain('10 recovery codes left');

    await page.click('#sign-out');
    await page.waitForSelector('#signin-form');
    await page.fill('#signin-email', user.email);
    await page.fill('#signin-password', user.password);
    await page.click('#signin-submit');
    // The password was right: the same page asks for the code (no session yet).
    await page.waitForSelector('#signin-code');
    expect(await page.evaluate("sessionStorage.getItem('dauth.console.session')")).toBeNull();
    const wrong = ['000000', '111111'].find((c) => c !== totpCode(secret, confirmedStep + 1))!;
    await page.fill('#signin-code', wrong);
    await page.click('#signin-code-submit');
    await page.waitForSelector('#signin-code-form [role=alert]');
    expect(await page.textContent('#signin-code-form [role=alert]')).toContain('invalid_mfa_code');
    // A code of a later step than the one that confirmed (each code is accepted once).
    await page.fill('#signin-code', totpCode(secret, confirmedStep + 1));
    await page.click('#signin-code-submit');
    await page.waitForSelector('#app-list, #apps');
    const token = (await page.evaluate(
      "JSON.parse(sessionStorage.getItem('dauth.console.session')).token",
    )) as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { amr: string[] };
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    await page.close();
  });
});
