import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Translator } from '../../i18n/translator.js';
import { newNonce, pageHeaders } from './html.js';
import { pageTranslator } from './pageLocale.js';

/**
 * A page of a mailed link (the sign-up mail's, the security mail's): HTML whatever the outcome (the typed
 * replies are the JSON error shapes), in the language of the cookie or `Accept-Language` (a mailed link
 * carries no `ui_locales`). `Referrer-Policy: same-origin`, so the confirm form's POST carries our Origin,
 * which the POST checks (html.ts).
 */
export function sendMailedLinkPage(
  request: FastifyRequest,
  reply: unknown,
  status: number,
  render: (translator: Translator, nonce: string) => string,
) {
  const nonce = newNonce();
  return (reply as FastifyReply)
    .status(status)
    .headers(pageHeaders(nonce, [], { referrerPolicy: 'same-origin' }))
    .send(render(pageTranslator(request), nonce));
}
