/**
 * `npm run screenshots`: one PNG per web-console page in docs/console/, taken by Debian's Chromium
 * (playwright-core) from a live dauth. By default it starts its own service (SQLite and the embedded
 * chain in a temporary directory); `DAUTH_URL=http://host:port` points it at a running one instead.
 */
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

async function liveService(): Promise<{ url: string; close(): Promise<void> }> {
  if (process.env.DAUTH_URL) return { url: process.env.DAUTH_URL.replace(/\/$/, ''), close: async () => {} };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-screenshots-'));
  const port = await getFreePort('127.0.0.1');
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  });
  const server = await startServer(config, { logger: pino({ level: 'silent' }) });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function shoot(page: Page, name: string): Promise<void> {
  // Focus rings and the caret would differ between runs; blur before taking the picture.
  // (Page-side code is a string: this file is type-checked without the DOM library.)
  await page.evaluate('document.activeElement?.blur()');
  await page.screenshot({ path: path.join(OUT_DIR, `${name}.png`) });
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
    await page.fill('#signup-email', `dev-${Date.now()}@example.com`);
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

    await page.click('#created-continue');
    await page.waitForSelector('#provider-form');
    await shoot(page, 'app-detail');
    await page.fill('#provider-cuid', 'space-game');
    await page.fill('#provider-owner', '0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a');
    await page.click('#provider-submit');
    await page.waitForSelector('#provider-key', { timeout: 60_000 });
    await page.evaluate("document.getElementById('provider-result')?.scrollIntoView({ block: 'end' })");
    await shoot(page, 'app-content-provider');

    // Approve the app once (the login JWT on the authorize endpoint), so the account page lists it.
    const token = (await page.evaluate(
      "JSON.parse(sessionStorage.getItem('dauth.console.session') ?? '{}').token",
    )) as string;
    const clientId = await page.textContent('#app-client-id');
    const authorize = new URL(`${service.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: clientId ?? '',
      redirect_uri: 'https://game.example.com/oauth/callback',
      response_type: 'code',
    }))
      authorize.searchParams.set(k, v);
    await fetch(authorize, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });

    await open('#/apps', '#app-list');
    await shoot(page, 'apps');
    await open('#/account', '#consents');
    await shoot(page, 'account');
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
