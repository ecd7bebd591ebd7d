import type { Page } from 'playwright-core';
import { TRANSFER } from '../sessionKeys/support.js';

/**
 * Fills the console's wallet-policy form of an app page (docs/console.md): `token`'s `transfer` allowed, no
 * native value, `perDay` of the token a day, valid for `days`. Opens the section first when `open` is set.
 */
export async function fillWalletPolicy(
  page: Page,
  policy: { token: string; perDay: string; days: number; open?: boolean },
): Promise<void> {
  if (policy.open) {
    await page.click('#policy-open');
    await page.waitForSelector('#policy-calls');
  }
  await page.fill('#policy-calls', `${policy.token} ${TRANSFER}`);
  await page.fill('#policy-per-call', '0');
  await page.fill('#policy-per-day', '0');
  await page.fill('#policy-tokens', `${policy.token} ${policy.perDay}`);
  await page.fill('#policy-days', String(policy.days));
}
