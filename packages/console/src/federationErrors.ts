import type { MessageKey } from './i18n/catalogues/index.js';
import { t } from './i18n/translator.js';

/** What a `#federation_error=<code>` (decisions §8) means for the person who just tried to sign in. */
const MESSAGES: Record<string, MessageKey> = {
  account_exists_link_required: 'console.federation.error.account_exists_link_required',
  access_denied: 'console.federation.error.access_denied',
  identity_in_use: 'console.federation.error.identity_in_use',
  invalid_link_ticket: 'console.federation.error.invalid_link_ticket',
  flow_browser_mismatch: 'console.federation.error.flow_browser_mismatch',
};

export function formatError(code: string): string {
  const known = Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : undefined;
  if (known) return t(known);
  return code ? t('console.federation.error.other', { code }) : t('console.federation.error.unknown');
}
