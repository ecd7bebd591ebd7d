/**
 * `npm run screenshots`: one PNG per web-console page in docs/console/, taken by Debian's Chromium
 * (playwright-core) from a live dauth. By default it starts its own service (SQLite and the embedded
 * chain in a temporary directory); `DAUTH_URL=http://host:port` points it at a running one instead.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '@dauth/contracts';
import pino from 'pino';
import { chromium, type Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';

const OUT_DIR = fileURLToPath(new URL('../../../docs/console/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'correct horse battery';
const VIEWPORT = { width: 960, height: 720 };

interface Service {
  url: string;
  /** For the faucet that funds the account page's wallet: ours, or ADMIN_API_KEY for DAUTH_URL. */
  adminKey: string | undefined;
  close(): Promise<void>;
}

async function liveService(): Promise<Service> {
  if (process.env.DAUTH_URL) {
    return {
      url: process.env.DAUTH_URL.replace(/\/$/, ''),
      adminKey: process.env.ADMIN_API_KEY,
      close: async () => {},
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-screenshots-'));
  const port = await getFreePort('127.0.0.1');
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // A small app budget, so the activity chart's budget line and the day's spend share one scale.
    SPONSOR_APP_DAILY_GAS: '8000000',
  });
  const server = await startServer(config, { logger: pino({ level: 'silent' }) });
  return {
    url: server.url,
    adminKey: server.services.secrets.adminApiKey,
    close: async () => {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON call to the service; throws with the answer when it is not 2xx. */
async function api(url: string, method: string, body?: unknown, bearer?: string): Promise<string> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text;
}

interface Player {
  token: string;
  uuid: number;
  pin: { pin_hash: string; pin_salt: string; key_share_user: string };
  address: string;
  slotId: string;
}

const REDIRECT_URI = 'https://game.example.com/oauth/callback';
const uuidOf = (token: string): number =>
  Number(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).sub);

/**
 * A player of the app as players get one: a PIN wallet (funded by the faucet) and a slot of the app made by
 * the backend-integration authorize.
 */
async function player(service: Service, token: string, clientId: string): Promise<Player> {
  const uuid = uuidOf(token);
  const salt = randomBytes(32).toString('hex');
  const pinFields = { pin_hash: createHash('sha256').update(`123456${salt}`).digest('hex'), pin_salt: salt };
  const registered = JSON.parse(
    await api(`${service.url}/v1/pin/register`, 'POST', { user_uuid: uuid, ...pinFields }, token),
  ) as { data: [{ address: string; key_share_user: string }] };
  const { address, key_share_user } = registered.data[0];
  if (service.adminKey) {
    await api(
      `${service.url}/v1/admin/faucet`,
      'POST',
      { address, native: '2000000000000000000', token: '5000000000000000000000' },
      service.adminKey,
    );
  }
  // The app's registered callback is not reachable from here: the slot is made all the same, and the
  // undelivered code is invalidated (docs/backend-integration.md).
  const authorize = new URL(`${service.url}/v1/oauth-meta/authorize`);
  for (const [k, v] of Object.entries({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    respose_type: 'code',
    state: randomBytes(16).toString('hex'),
  }))
    authorize.searchParams.set(k, v);
  const slotText = await api(authorize.toString(), 'GET', undefined, token);
  const slotId = /"id":"?(\d+)/.exec(slotText)![1]!; // 19 digits: read as text, never as a number
  return { token, uuid, pin: { ...pinFields, key_share_user }, address, slotId };
}

/**
 * A sign-in to the app: the code flow with the login JWT, and the app's exchange of the code. Answers the
 * app's access token for the player.
 */
async function signInToApp(
  service: Service,
  token: string,
  clientId: string,
  clientSecret: string,
): Promise<string> {
  const authorize = new URL(`${service.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
  }))
    authorize.searchParams.set(k, v);
  const res = await fetch(authorize, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
  const code = new URL(res.headers.get('location') ?? REDIRECT_URI).searchParams.get('code');
  if (!code) throw new Error(`no code: ${res.status}`);
  const exchanged = await fetch(`${service.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  if (!exchanged.ok) throw new Error(`exchange: ${exchanged.status} ${await exchanged.text()}`);
  return ((await exchanged.json()) as { access_token: string }).access_token;
}

/** What a provider backend sends for a consumption in the authenticated form (docs/content-tokens.md). */
function sealGcm(keyHex: string, clientId: string, payload: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  cipher.setAAD(Buffer.from(`dauth/content-payload/v1:${clientId}`, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return `gcm1:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('hex')}`;
}

/**
 * Real flows behind the account page and the app's activity charts: the developer and a second player
 * sign in to the app, the developer buys content (a sponsored operation) and the app's backend reports
 * some of it consumed, and the second player sells their slot to the developer on the market.
 */
async function appData(
  service: Service,
  developerEmail: string,
  app: { clientId: string; clientSecret: string; gcmKey: string; cuid: string },
): Promise<{ developer: Player; accessToken: string; second: Player }> {
  // The console's own login is bound to the console (decisions §8): the game's is bound to the game.
  const signIn = async (email: string) =>
    (
      JSON.parse(
        await api(`${service.url}/v1/dev-user/login_devuser`, 'POST', {
          email,
          password: PASSWORD,
          client_id: app.clientId,
        }),
      ) as { token: string }
    ).token;
  const token = await signIn(developerEmail);
  const developer = await player(service, token, app.clientId);
  const email = `player-${Date.now()}@example.com`;
  await api(`${service.url}/v1/dev-user/register`, 'POST', { email, password: PASSWORD });
  const second = await player(service, await signIn(email), app.clientId);
  const accessToken = await signInToApp(service, developer.token, app.clientId, app.clientSecret);
  await signInToApp(service, second.token, app.clientId, app.clientSecret);
  const made = { developer, accessToken, second };
  if (!service.adminKey) return made; // the purchase and the sale need funds from the faucet
  await api(
    `${service.url}/v1/development-api/user_buy_content_token`,
    'POST',
    {
      client_id: app.clientId,
      user_dbkey: developer.slotId,
      amount: '250000',
      cuid: app.cuid,
      ...developer.pin,
    },
    token,
  );
  const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64');
  const consumed = await fetch(`${service.url}/v1/development-api/increase_used_content_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${basic}` },
    body: JSON.stringify({
      client_id: app.clientId,
      encrypted_message: sealGcm(app.gcmKey, app.clientId, {
        client_id: app.clientId,
        user_dbkey: developer.slotId,
        amount: '40000',
        cuid: app.cuid,
        iat: Math.floor(Date.now() / 1000),
      }),
    }),
  });
  if (!consumed.ok) throw new Error(`consumption: ${consumed.status} ${await consumed.text()}`);
  const listed = JSON.parse(
    await api(
      `${service.url}/v1/market/listings`,
      'POST',
      { user_id: String(second.uuid), client_id: app.clientId, price: '250000000000000000', ...second.pin },
      second.token,
    ),
  ) as { listing: { id: string } };
  await api(`${service.url}/v1/market/listings/${listed.listing.id}/purchase`, 'POST', developer.pin, token);
  return made;
}

const TRANSFER = '0xa9059cbb';
const APPROVE = '0x095ea7b3';

/**
 * The app's wallet policy, set in the app page's form (the console is on the app's page): the app may
 * transfer or approve up to 500 DAUTH a day of the platform token, no ether, for a week.
 */
async function setWalletPolicy(page: Page, tokenAddress: string): Promise<void> {
  await page.click('#policy-open');
  await page.waitForSelector('#policy-calls');
  await page.fill('#policy-calls', `${tokenAddress} ${TRANSFER} ${APPROVE}`);
  await page.fill('#policy-per-call', '0');
  await page.fill('#policy-per-day', '0');
  await page.fill('#policy-tokens', `${tokenAddress} 500000000000000000000`);
  await page.fill('#policy-days', '7');
  await page.click('#policy-submit');
  // Saving is step-up: a login older than STEP_UP_MAX_AGE is asked for the password first.
  await page.waitForSelector('#stepup-password, #wallet-policy-form [role=status]');
  if (await page.$('#stepup-password')) {
    await page.fill('#stepup-password', PASSWORD);
    await page.click('#stepup-submit');
  }
  await page.locator('#wallet-policy-form [role=status]', { hasText: 'Policy saved' }).waitFor();
}

/**
 * The developer, as a player of the app, grants its policy with the PIN; the app then moves 120 DAUTH from the
 * wallet with the session key (no PIN), so the account page shows the grant's use today.
 */
async function grantAndUse(
  service: Service,
  made: { developer: Player; accessToken: string; second: Player },
  clientId: string,
  tokenAddress: string,
): Promise<void> {
  const { developer, accessToken, second } = made;
  await api(
    `${service.url}/v1/wallet/session-keys`,
    'POST',
    { client_id: clientId, ...developer.pin },
    developer.token,
  );
  const amount = (120n * 10n ** 18n).toString(16).padStart(64, '0');
  const to = second.address.slice(2).toLowerCase().padStart(64, '0');
  await api(
    `${service.url}/v1/wallet/session-operations`,
    'POST',
    { calls: [{ to: tokenAddress, data: `${TRANSFER}${to}${amount}` }] },
    accessToken,
  );
}

/**
 * `fullPage`: the whole scrolling page (the account page is taller than the viewport); or a CSS selector:
 * that element alone (the app page's charts).
 */
async function shoot(page: Page, name: string, fullPage: boolean | string = false): Promise<void> {
  // Focus rings and the caret would differ between runs; blur before taking the picture.
  // (Page-side code is a string: this file is type-checked without the DOM library.)
  await page.evaluate('document.activeElement?.blur()');
  const file = path.join(OUT_DIR, `${name}.png`);
  if (typeof fullPage === 'string') await page.locator(fullPage).screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage });
  console.log(`docs/console/${name}.png`);
}

async function main(): Promise<void> {
  const service = await liveService();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    fs.mkdirSync(OUT_DIR, { recursive: true });
    const page = await browser.newPage({ viewport: VIEWPORT });
    const open = async (hash: string, selector: string) => {
      await page.goto(`${service.url}/console${hash}`);
      await page.waitForSelector(selector);
    };

    await open('#/signin', '#signin-form');
    await shoot(page, 'sign-in');
    await open('#/reset', '#reset-request-form');
    await shoot(page, 'password-reset-request');
    await open('#/reset/confirm?email=dev%40example.com', '#reset-confirm-form');
    await shoot(page, 'password-reset-confirm');

    await open('#/signup', '#signup-form');
    const developerEmail = `dev-${Date.now()}@example.com`;
    await page.fill('#signup-email', developerEmail);
    await page.fill('#signup-nickname', 'Studio dev');
    await shoot(page, 'sign-up');
    await page.fill('#signup-password', PASSWORD);
    await page.click('#signup-submit');
    await page.waitForSelector('#app-list');

    await page.click('#new-app');
    await page.fill('#app-name', 'Space Game');
    await page.fill('#app-redirect-uris', 'https://game.example.com/oauth/callback');
    await shoot(page, 'app-new');
    await page.click('#new-app-submit');
    await page.waitForSelector('#created-client-secret');
    await shoot(page, 'app-created-secret-once');
    const clientSecret = (await page.textContent('#created-client-secret')) ?? '';

    await page.click('#created-continue');
    await page.waitForSelector('#provider-form');
    await shoot(page, 'app-detail');
    await page.fill('#provider-cuid', 'space-game');
    await page.fill('#provider-owner', '0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a');
    await page.click('#provider-submit');
    await page.waitForSelector('#provider-key', { timeout: 60_000 });
    const gcmKey = (await page.textContent('#provider-gcm-key')) ?? '';
    await page.evaluate("document.getElementById('provider-result')?.scrollIntoView({ block: 'end' })");
    await shoot(page, 'app-content-provider');

    // Sign-ins, a purchase, a consumption and a sale: the account page and the app's charts show them.
    const clientId = (await page.textContent('#app-client-id')) ?? '';
    const made = await appData(service, developerEmail, {
      clientId,
      clientSecret,
      gcmKey,
      cuid: 'space-game',
    });
    // (Through the app list: the page is already at this app's hash, which would not render again.)
    await open('#/apps', '#app-list');
    await open(`#/apps/${clientId}`, '#activity figure.chart canvas');
    await shoot(page, 'app-activity', '#activity');
    const { token: tokenAddress } = JSON.parse(await api(`${service.url}/v1/chain/info`, 'GET')) as {
      token: string;
    };
    await setWalletPolicy(page, tokenAddress);
    await shoot(page, 'app-wallet-policy', '#wallet-policy');
    if (service.adminKey) await grantAndUse(service, made, clientId, tokenAddress);

    await open('#/apps', '#app-list');
    await shoot(page, 'apps');
    await open('#/account', '#consents');
    await page.waitForSelector('#consents button'); // the approved app and its Revoke button
    await page.waitForLoadState('networkidle'); // and every other section's data
    await shoot(page, 'account', true);
    if (service.adminKey) await shoot(page, 'account-session-keys', '#session-keys');
    await open('#/security', '#ways-in-list');
    await page.waitForLoadState('networkidle'); // its sessions and the authenticator's state too
    await shoot(page, 'security', true);
    await page.click('#totp-start');
    await page.waitForSelector('#totp-qr');
    await shoot(page, 'security-totp-enrolment', '#totp');
    await open('#/password', '#password-form');
    await shoot(page, 'change-password');

    await page.setViewportSize({ width: 360, height: 740 });
    await open('#/apps', '#app-list');
    await shoot(page, 'apps-phone');
  } finally {
    await browser.close();
    await service.close();
  }
}

await main();
