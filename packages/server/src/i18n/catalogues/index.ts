import { type Locale, SUPPORTED_LOCALES } from '../locales.js';
import account from './account/index.js';
import common from './common/index.js';
import consent from './consent/index.js';
import device from './device/index.js';
import errors from './errors/index.js';
import mail from './mail/index.js';
import signin from './signin/index.js';

/**
 * Every namespace of messages. A namespace is one screen or one family of mails; its keys start with its
 * name (`signin.title`), its English file is the source, and each locale has a file of its own
 * (docs/i18n.md).
 */
export const NAMESPACES = { common, signin, consent, device, account, errors, mail } as const;
export type Namespace = keyof typeof NAMESPACES;

type EnglishOf<N extends Namespace> = (typeof NAMESPACES)[N]['en'];
export type MessageKey = { [N in Namespace]: keyof EnglishOf<N> & string }[Namespace];

/** Each locale's messages as one flat table, built once at load. */
export const CATALOGUES: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = Object.fromEntries(
  SUPPORTED_LOCALES.map((locale) => [
    locale,
    Object.assign({}, ...Object.values(NAMESPACES).map((namespace) => namespace[locale])) as Record<
      MessageKey,
      string
    >,
  ]),
) as Record<Locale, Record<MessageKey, string>>;
