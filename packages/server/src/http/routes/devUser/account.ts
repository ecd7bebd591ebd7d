import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { SUPPORTED_LOCALES } from '../../../i18n/locales.js';
import { authOf, bearerSecurity, requireFirstParty, requireToken } from '../../auth.js';
import { perUser } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/** Each part of the export is documented field by field in docs/account.md. */
const part = (description: string) => Type.Unknown({ description });

/**
 * The account's own life (decisions §9, docs/account.md): deletion and export, both first-party and fresh (a
 * console login JWT within STEP_UP_MAX_AGE), as every change to the account's ways in; and its language, which
 * any login JWT of the account may change (it opens nothing).
 */
export async function accountRoutes(app: App, services: Services): Promise<void> {
  const { accountLife, accounts } = services;
  const firstParty = requireFirstParty(services.authenticator, services.config.stepUpMaxAgeSeconds);
  const limits = services.config.rateLimits;

  app.delete(
    '/v1/dev-user/account',
    {
      schema: {
        tags: ['accounts'],
        summary:
          "Deletes your account at once: every session, token, consent and session key ends, the ways in, e-mail, nickname and custody material are erased (the wallet stays on chain, controlled by your mnemonic only). `confirm` is the account's e-mail or uuid. First-party only: a fresh console login",
        security: bearerSecurity,
        body: Type.Object({ confirm: Type.String({ minLength: 1, maxLength: 320 }) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            deleted_at: Type.String({ description: 'ISO 8601 UTC' }),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
      preHandler: firstParty,
      config: perUser(limits, 'account_life'),
    },
    async (request, reply) => {
      const { deletedAt } = await accountLife.delete(Number(authOf(request).userId), request.body.confirm);
      void reply.header('cache-control', 'no-store');
      return { success: true, deleted_at: new Date(deletedAt).toISOString() };
    },
  );

  app.put(
    '/v1/dev-user/account/locale',
    {
      onRequest: [requireToken(services.authenticator, 'login')],
      schema: {
        tags: ['accounts'],
        summary: `The language of your mails (docs/account.md "Language"): one of ${SUPPORTED_LOCALES.join(', ')}. Any login JWT of the account`,
        security: bearerSecurity,
        body: Type.Object({ locale: Type.String({ maxLength: 35 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), locale: Type.String() }),
          ...errorResponses(400, 401, 429),
        },
      },
      config: perUser(limits, 'account_locale'),
    },
    async (request) => {
      const locale = await accounts.setLocale(Number(authOf(request).userId), request.body.locale);
      return { success: true, locale };
    },
  );

  app.get(
    '/v1/dev-user/account/export',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Everything about you as one JSON document (GDPR art. 15/20): profile, ways in (metadata only), consents, grants, sessions, wallets, slots, purchases, session keys, audit entries; no secret. First-party only: a fresh console login',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            format: Type.String({ description: 'dauth.account-export/1' }),
            exported_at: Type.String({ description: 'ISO 8601 UTC' }),
            profile: part(
              'user_id, email, email_verified, email_verified_at, nickname, created_at, guest, locale',
            ),
            ways_in: part('password (bool), guest, passkeys, identities: metadata only'),
            consents: part('the apps approved: client_id, app_name, scope, granted_at'),
            grants: part('every grant: grant_id, client_id, app_name, scope, created_at, revoked_at'),
            login_status: part('per app: client_id, status, updated_at'),
            sessions: part('login_page sessions and refresh_tokens (times only, never the token)'),
            wallets: part('address, kind, owner, deployed, created_at'),
            pin: part('PIN custody: wallet_address, created_at, locked_until; null without a PIN'),
            slots: part('slot_id, client_id, app_name, content_address, meta_idx, state'),
            purchases: part('content purchases, content balances, marketplace listings'),
            session_keys: part('session_key, client_id, policy, valid_until, state'),
            organizations: part(
              'the organizations it is a member of: org_id, name, personal, role, joined_at',
            ),
            audit: part('the newest 1000 audit entries of the account'),
          }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
      preHandler: firstParty,
      config: perUser(limits, 'account_life'),
    },
    async (request, reply) => {
      const document = await accountLife.export(Number(authOf(request).userId));
      void reply.header('cache-control', 'no-store');
      return { success: true, ...document };
    },
  );
}
