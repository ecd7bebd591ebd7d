import account from './account/en.js';
import activity from './activity/en.js';
import apps from './apps/en.js';
import auth from './auth/en.js';
import common from './common/en.js';
import orgs from './orgs/en.js';
import passkeys from './passkeys/en.js';
import players from './players/en.js';
import security from './security/en.js';
import serviceAccounts from './serviceAccounts/en.js';
import sponsorship from './sponsorship/en.js';
import wallet from './wallet/en.js';
import webhooks from './webhooks/en.js';

/**
 * The console's messages (docs/console.md, "Language"): one folder per area of the console, one file per
 * locale in it, ICU message syntax, every key `console.<area>.<purpose>`. English is the source; a new
 * locale adds `<area>/<locale>.ts` files typed `satisfies Translation<typeof en>` and its entry below.
 */
const en = {
  ...common,
  ...auth,
  ...apps,
  ...activity,
  ...webhooks,
  ...sponsorship,
  ...wallet,
  ...account,
  ...passkeys,
  ...security,
  ...orgs,
  ...players,
  ...serviceAccounts,
};

export type MessageKey = keyof typeof en;

/** A translation of English messages: exactly their keys, each an ICU message. */
export type Translation<English> = { readonly [Key in keyof English]: string };

export const CATALOGUES = { en } as const satisfies Record<string, Translation<typeof en>>;
export type Locale = keyof typeof CATALOGUES;
export const LOCALES = Object.keys(CATALOGUES) as Locale[];
export const DEFAULT_LOCALE: Locale = 'en';
