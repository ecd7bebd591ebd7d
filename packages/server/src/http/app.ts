import formBody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerFactory } from 'fastify';
import type { Services } from '../composition/index.js';
import { installErrorHandling, refuseFormBodiesOutsideOAuth, renderFrameworkError } from './errorHandler.js';
import { installAuditRecorder } from './auditRecorder.js';
import { installOrgAuditRecorder } from './orgAuditRecorder.js';
import { RATE_LIMIT_NAMESPACE, registerAdminRateLimit, registerLoginRateLimit } from './rateLimits.js';
import { requestIdGenerator } from './requestIds.js';
import { requestReporting } from './requestMetrics.js';
import { installRequestTracing } from './tracing.js';
import { adminRoutes } from './routes/admin/index.js';
import { emailVerificationRoutes } from './routes/auth/email.js';
import { backendIntegrationRoutes } from './routes/backendIntegration/index.js';
import { chainRoutes } from './routes/chain/info.js';
import { contentTokenRoutes } from './routes/content/index.js';
import { clientRoutes } from './routes/devUser/clients.js';
import { orgRoutes } from './routes/orgs/index.js';
import { webhookRoutes } from './routes/devUser/webhooks.js';
import { appActivityRoutes } from './routes/devUser/activity.js';
import { walletPolicyRoutes } from './routes/devUser/walletPolicy.js';
import { appSponsorshipRoutes } from './routes/devUser/sponsorship.js';
import { walletSessionKeyRoutes } from './routes/wallet/sessionKeys.js';
import { consentRoutes } from './routes/devUser/consents.js';
import { accountRoutes } from './routes/devUser/account.js';
import { devUserLoginRoutes } from './routes/devUser/login.js';
import { guestRoutes } from './routes/devUser/guest.js';
import { passkeyRoutes } from './routes/devUser/passkeys.js';
import { mfaRoutes } from './routes/devUser/mfa.js';
import { sessionRoutes } from './routes/devUser/sessions.js';
import { federatedLoginRoutes } from './routes/devUser/federatedLogin.js';
import { platformLoginRoutes } from './routes/devUser/platformLogin.js';
import { identityRoutes } from './routes/devUser/identities.js';
import { federationRoutes } from './routes/federation/index.js';
import { devUserLogoutRoutes } from './routes/devUser/logout.js';
import { devUserOperationsRoutes } from './routes/devUser/operations.js';
import { passwordRoutes } from './routes/devUser/password.js';
import { devUserRegisterRoutes } from './routes/devUser/register.js';
import { devUserVerifyEmailRoutes } from './routes/devUser/verifyEmail.js';
import { accountSecureRoutes } from './routes/account/secure.js';
import { devUserSlotsRoutes } from './routes/devUser/slots.js';
import { devUserWalletRoutes } from './routes/devUser/wallet.js';
import { uint256Format } from './schemas.js';
import { healthRoutes } from './routes/health.js';
import { altchaAssetRoutes } from './routes/assets/altcha.js';
import { challengeRoutes } from './routes/challenge.js';
import { localeRoutes } from './routes/locale.js';
import { exchangeTokenOwnerRoutes } from './routes/idexPlatform/exchangeTokenOwner.js';
import { marketRoutes } from './routes/market/listings.js';
import { metricsRoutes } from './routes/metrics.js';
import { oauthAuthorizeRoutes } from './routes/oauth/authorize/index.js';
import { deviceAuthorizationRoutes } from './routes/oauth/deviceAuthorization.js';
import { devicePageRoutes } from './routes/oauth/device/index.js';
import { deviceRoutes } from './routes/device/index.js';
import { oauthIntrospectRoutes } from './routes/oauth/introspect.js';
import { oauthRevokeRoutes } from './routes/oauth/revoke.js';
import { statusRoutes } from './routes/oauth/status.js';
import { oauthTokenRoutes } from './routes/oauth/token.js';
import { oauthValidateRoutes } from './routes/oauth/validate.js';
import { pinRoutes } from './routes/pin/index.js';
import { tokenTransferRoutes } from './routes/token/transfer.js';
import { jwksRoutes } from './routes/wellKnown/jwks.js';
import { oauthMetadataRoutes } from './routes/wellKnown/oauthAuthorizationServer.js';
import { oidcRoutes } from './routes/oidc/index.js';
import { endSessionRoutes } from './routes/oidc/endSession.js';
import { useCookies } from './cookies.js';
import { declareRequestFields } from './requestFields.js';
import { playerRoutes } from './routes/studio/players.js';
import { serviceAccountRoutes } from './routes/studio/serviceAccounts.js';
import { CONSOLE_HEADERS, consoleRoutes } from './routes/console/index.js';
import type { App } from './types.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** A hop count as the trust function Fastify builds from one: the `hops` addresses nearest to us are proxies. */
const trustProxyOption = (trust: false | number | string[]) =>
  typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;

/**
 * The service as a Fastify instance that is not yet listening: `server.ts` hands it a server that already
 * listens (`serverFactory`), tests call `inject` or listen on port 0.
 */
export async function buildApp(
  services: Services,
  options: { serverFactory?: FastifyServerFactory } = {},
): Promise<App> {
  // Every answer is counted, timed and logged from Node's report of it, without a listener per request.
  const reporting = requestReporting(services.logger, services.metrics);
  const app = Fastify({
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
    // No logger of Fastify's own: it would add two listeners to every response (requestMetrics.ts). The
    // request lines are the log controller's, and request.log is dauth's (installRequestLoggers).
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(services.config.trustProxy),
    // Request ids let a support ticket be matched to a log line without logging any secret.
    genReqId: requestIdGenerator(),
    logController: reporting.logController,
    frameworkErrors: renderFrameworkError,
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: true,
        formats: { uint256: uint256Format },
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The fields hooks set on a request, declared once for every scope, without a store per request.
  declareRequestFields(app);
  // request.log and reply.log bind the request id on the first line written (no pino child per request).
  reporting.install(app);

  // First, so every later hook runs inside the request's span (tracing off: nothing installed).
  if (services.tracing.enabled) installRequestTracing(app);
  installErrorHandling(app);
  installAuditRecorder(app, services.audit);
  installOrgAuditRecorder(app, services.orgs, services.logger);
  await app.register(formBody);
  await app.register(rateLimit, {
    global: false,
    ...(services.redis ? { redis: services.redis, nameSpace: RATE_LIMIT_NAMESPACE } : {}),
  });
  registerLoginRateLimit(app, services.config.rateLimits);
  registerAdminRateLimit(app, services.config.rateLimits);
  refuseFormBodiesOutsideOAuth(app);
  // Strict-Transport-Security over https is the server's (server.ts), not a hook's: http/transportSecurity.ts.
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'dauth',
        version: '0.1.0',
        description: 'Decentralized authorization service: OAuth 2.0, ERC-4337 wallets, content tokens.',
      },
      servers: [{ url: services.config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY' },
        },
      },
    },
  });
  // The API docs page gets the console's CSP and frame headers (decisions §8): its scripts and styles
  // are files of this service too, and nothing may frame it.
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply) => {
      void reply.headers(CONSOLE_HEADERS);
    });
    await docs.register(swaggerUi, { routePrefix: '/docs' });
  });

  // Route modules, each `(app, services) => void`: add a new one to one of the three groups below. Files under
  // routes/ mirror the URL path after `/v1` (docs/architecture.md has the table).
  //
  // Fastify gives every encapsulated scope Request and Reply classes of its own, and its per-request code (the
  // handler, hook runners, `reply.send`, the request getters) is shared by every route: with a scope per module,
  // the requests of a few dozen classes went through it, and past four a property access there turns
  // megamorphic for the life of the process (docs/performance-http.md, round 11). So the API's modules add
  // their routes to the root and share its two classes; a module that needs a scope goes to one of two, so a
  // process sees at most four classes (the root's, the cookie pages', the admin routes', the API docs').
  // A module on the root adds no request hook: it would run on every route (test/http/routeHooks.test.ts).
  const apiRouteModules = [
    chainRoutes,
    healthRoutes,
    challengeRoutes,
    altchaAssetRoutes,
    devUserRegisterRoutes,
    devUserVerifyEmailRoutes,
    accountSecureRoutes,
    devUserLoginRoutes,
    guestRoutes,
    passkeyRoutes,
    mfaRoutes,
    sessionRoutes,
    federatedLoginRoutes,
    platformLoginRoutes,
    devUserLogoutRoutes,
    clientRoutes,
    orgRoutes,
    webhookRoutes,
    appActivityRoutes,
    walletPolicyRoutes,
    appSponsorshipRoutes,
    walletSessionKeyRoutes,
    consentRoutes,
    serviceAccountRoutes,
    playerRoutes,
    accountRoutes,
    devUserWalletRoutes,
    devUserSlotsRoutes,
    devUserOperationsRoutes,
    passwordRoutes,
    jwksRoutes,
    oauthMetadataRoutes,
    oauthTokenRoutes,
    deviceAuthorizationRoutes,
    deviceRoutes,
    oauthRevokeRoutes,
    oauthIntrospectRoutes,
    oauthValidateRoutes,
    oidcRoutes,
    statusRoutes,
    backendIntegrationRoutes,
    exchangeTokenOwnerRoutes,
    marketRoutes,
    pinRoutes,
    emailVerificationRoutes,
    tokenTransferRoutes,
    contentTokenRoutes,
    metricsRoutes,
    consoleRoutes,
  ];
  for (const routes of apiRouteModules) await routes(app, services);

  // The pages and flows that set cookies: the cookie plugin's `onSend` writer runs on these routes only.
  const cookieRouteModules = [
    localeRoutes,
    identityRoutes,
    federationRoutes,
    oauthAuthorizeRoutes,
    devicePageRoutes,
    endSessionRoutes,
  ];
  await app.register(async (scope) => {
    await useCookies(scope);
    for (const routes of cookieRouteModules) await routes(scope as App, services);
  });

  // `/v1/admin/*`: its key check and rate limit are `onRequest` hooks of its scope.
  await app.register(async (scope) => adminRoutes(scope as App, services));
  return app;
}
