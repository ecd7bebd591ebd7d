import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  type AuthorizationRequest,
  authorizationFields,
} from '../../../../services/oauth/authorizationRequest.js';
import { disclosedClaims } from '../../../../services/oidc/scopes.js';
import { consentPage } from '../../../pages/consentPage.js';
import { newNonce } from '../../../pages/html.js';
import { pageTranslator } from '../../../pages/pageLocale.js';
import { requestContextOf } from '../../../requestContext.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { isMultiFactor } from '../../../../services/oidc/authenticationContext.js';
import { type AuthorizePage, needsMfa, pageForm } from './shared.js';
import { cookieOf } from '../../../cookies.js';

const ConsentForm = pageForm({
  decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
});

/** The consent page (`GET /oauth/authorize` with a session, app not yet approved); its form posts below. */
export async function showConsent(
  page: AuthorizePage,
  request: FastifyRequest,
  reply: FastifyReply,
  authz: AuthorizationRequest,
  userUuid: number,
) {
  const user = await page.services.accounts.findUser(userUuid);
  if (!user) return page.showLogin(request, reply, authz);
  const nonce = newNonce();
  const redirectOrigin = new URL(authz.redirectUri).origin;
  const fields = authorizationFields(authz);
  const body = consentPage({
    // The flow's `ui_locales` rides in the authorization request's fields (decisions §9).
    translator: pageTranslator(request, fields.ui_locales),
    nonce,
    clientName: authz.client.name,
    accountEmail: user.email ?? user.nickname,
    redirectOrigin,
    dapp: authz.client.dapp,
    sharedClaims: disclosedClaims(authz.oidc.scope),
    walletPolicy: await page.services.sessionKeys
      .describePolicy(authz.client.clientId)
      .catch(() => undefined),
    csrfToken: page.csrfFor(request, reply),
    fields,
  });
  return page.sendPage(reply, 200, nonce, body, [redirectOrigin]);
}

/** `POST /oauth/authorize/consent`: allow or deny, then the redirect. */
export async function consentRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { browserSessions } = page.services;

  app.post(
    '/oauth/authorize/consent',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Consent form of the login-and-consent page: allow or deny, then the redirect',
        body: ConsentForm,
        response: errorResponses(400, 401, 403),
      },
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      const authz = await page.checkForm(request, reply, request.body);
      if (!authz) return reply;
      const session = await browserSessions.sessionOf(cookieOf(request, page.cookies.session));
      if (session === undefined) {
        // The session expired between the two pages: back to sign-in, nothing granted.
        return page.backToAuthorize(reply, authz);
      }
      // Two factors asked for and not proved: the request's page asks for them first.
      if (needsMfa(authz) && !isMultiFactor(session.amr)) return page.backToAuthorize(reply, authz);
      if (request.body.decision === 'deny') {
        return page.finish(reply, authz, { error: 'access_denied', state: authz.state }, 303);
      }
      await browserSessions.recordConsent(session.userUuid, authz.client.clientId, authz.oidc.scope);
      const code = await page.grantCode(
        session.userUuid,
        authz,
        session.authTime,
        session.amr,
        requestContextOf(request),
      );
      return page.finish(reply, authz, code, 303);
    },
  );
}
