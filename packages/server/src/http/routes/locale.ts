import { Type } from 'typebox';
import type { Services } from '../../composition/index.js';
import { badRequest, invalidField } from '../../errors.js';
import { LOCALE_COOKIE, SUPPORTED_LOCALES } from '../../i18n/locales.js';
import { LOCALE_SWITCH_PATH } from '../pages/layout.js';
import { safeReturnPath } from '../pages/pageLocale.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

/**
 * The pages' language switcher (decisions §9, docs/i18n.md): remembers the choice in the `dauth_locale`
 * cookie and goes back to the page. A flow's `ui_locales` outranks the cookie, so it is replaced in the
 * address gone back to; only paths of this service are gone back to (no open redirector).
 */
export async function localeRoutes(app: App, services: Services): Promise<void> {
  const secure = services.config.publicUrl.startsWith('https:');
  app.get(
    LOCALE_SWITCH_PATH,
    {
      schema: {
        tags: ['pages'],
        summary:
          'The language switcher of the sign-in, consent, device and account pages: sets `dauth_locale`, goes back',
        querystring: Type.Object({
          locale: Type.String({ maxLength: 20, description: SUPPORTED_LOCALES.join(', ') }),
          return_to: Type.String({ maxLength: 4096, description: 'A path of this service' }),
        }),
        response: { 303: Type.Null({ description: 'Back to `return_to`' }), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { locale, return_to: returnTo } = request.query;
      if (!(SUPPORTED_LOCALES as readonly string[]).includes(locale)) {
        throw invalidField('locale', `locale must be one of ${SUPPORTED_LOCALES.join(', ')}`);
      }
      const path = safeReturnPath(returnTo);
      if (!path) throw badRequest('invalid_request', 'return_to must be a path of this service');
      const target = new URL(path, 'http://self');
      if (target.searchParams.has('ui_locales')) target.searchParams.set('ui_locales', locale);
      void reply.setCookie(LOCALE_COOKIE, locale, {
        path: '/',
        sameSite: 'lax',
        httpOnly: true,
        secure,
        maxAge: ONE_YEAR_SECONDS,
      });
      return reply.header('cache-control', 'no-store').redirect(`${target.pathname}${target.search}`, 303);
    },
  );
}
