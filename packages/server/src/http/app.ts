import formBody from '@fastify/formbody';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Services } from '../composition.js';
import { installErrorHandling } from './errorHandler.js';
import { registerLoginRateLimit } from './rateLimits.js';
import { accountRoutes } from './routes/accounts.js';
import { adminFaucetRoutes } from './routes/admin/faucet.js';
import { chainRoutes } from './routes/chain.js';
import { healthRoutes } from './routes/health.js';
import { clientRoutes } from './routes/clients.js';
import { oauthAuthorizeRoutes } from './routes/oauthAuthorize.js';
import { oauthTokenRoutes } from './routes/oauthToken.js';
import { oauthValidateRoutes } from './routes/oauthValidate.js';
import { statusRoutes } from './routes/status.js';
import { oauthMetaRoutes } from './routes/oauthMeta.js';
import { exchangeTokenOwnerRoutes } from './routes/exchangeTokenOwner.js';
import { marketRoutes } from './routes/market.js';
import { adminTransferTicketRoutes } from './routes/admin/transferTickets.js';
import { pinRoutes } from './routes/pin.js';
import { emailVerificationRoutes } from './routes/emailVerification.js';
import { tokenTransferRoutes } from './routes/tokenTransfer.js';
import { developmentApiRoutes } from './routes/developmentApi.js';
import { adminContentRoutes } from './routes/admin/content.js';
import type { App } from './types.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The service as a Fastify instance that is not yet listening: `server.ts` listens, tests call
 * `inject` or listen on port 0.
 */
export async function buildApp(services: Services): Promise<App> {
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: services.config.trustProxy,
    // Request ids let a support ticket be matched to a log line without logging any secret.
    genReqId: () => crypto.randomUUID(),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installErrorHandling(app);
  await app.register(formBody);
  await app.register(cookie);
  await app.register(rateLimit, {
    global: false,
    ...(services.redis ? { redis: services.redis, nameSpace: 'dauth-rl:' } : {}),
  });
  registerLoginRateLimit(app);
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
  await app.register(swaggerUi, { routePrefix: '/docs' });

  // Route modules: each is `(app, services) => void`; add new ones to this list.
  const routeModules = [
    chainRoutes,
    adminFaucetRoutes,
    healthRoutes,
    accountRoutes,
    clientRoutes,
    oauthAuthorizeRoutes,
    oauthTokenRoutes,
    oauthValidateRoutes,
    statusRoutes,
    oauthMetaRoutes,
    exchangeTokenOwnerRoutes,
    marketRoutes,
    adminTransferTicketRoutes,
    pinRoutes,
    emailVerificationRoutes,
    tokenTransferRoutes,
    developmentApiRoutes,
    adminContentRoutes,
  ];
  for (const routes of routeModules) {
    await app.register(async (scope) => routes(scope as App, services));
  }
  return app;
}
