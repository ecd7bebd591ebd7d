import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { inCi } from './environment.js';

/** Debian's Chromium; `.ci/run` installs it. A plain `npm test` without it skips the browser suites. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function chromiumInstalled(): boolean {
  const ok = fs.existsSync(CHROMIUM_PATH);
  if (!ok && inCi) throw new Error(`Chromium at ${CHROMIUM_PATH} must be installed in CI`);
  return ok;
}

export const chromiumAvailable = chromiumInstalled();

// The machine's network is closed: without the background-networking flags Chromium keeps
// dialling out and its connections are refused, many at a time.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with its own empty profile, removed again by `close`. */
export async function launchTestBrowser(): Promise<TestBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A headless Chromium without a profile of its own, for a suite that needs several contexts (one per
 * `locale`, which sets the contexts' `Accept-Language`). Close it with `browser.close()`.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
