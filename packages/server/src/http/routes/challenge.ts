import { Type } from 'typebox';
import type { Services } from '../../composition/index.js';
import { challengeDifficulty } from '../defense.js';
import { routeLimit } from '../rateLimits.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

/**
 * `GET /v1/challenge` (decisions §9 "Bot challenge", docs/security.md): an ALTCHA proof-of-work
 * challenge, always served (whatever `BOT_CHALLENGE` covers) so a game may solve one ahead. The search
 * space `maxnumber` rises with the recent rate of challenges to the caller's network and app.
 */
export async function challengeRoutes(app: App, services: Services): Promise<void> {
  const difficulty = challengeDifficulty(app, services);
  app.get(
    '/v1/challenge',
    {
      schema: {
        tags: ['accounts'],
        summary: 'An ALTCHA challenge: find the number n ≤ maxnumber with SHA-256(salt + n) = challenge',
        querystring: Type.Object({
          client_id: Type.Optional(
            Type.String({
              maxLength: 200,
              description: 'The app the challenge is for (its rate sets the difficulty)',
            }),
          ),
        }),
        response: {
          200: Type.Object({
            algorithm: Type.Literal('SHA-256'),
            challenge: Type.String(),
            salt: Type.String({ description: 'Carries the expiry (`?expires=` seconds); signed' }),
            signature: Type.String(),
            maxnumber: Type.Integer(),
          }),
          ...errorResponses(429),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'challenge') },
    },
    async (request, reply) => {
      const maxnumber = await difficulty(request, request.query.client_id ?? '');
      void reply.header('cache-control', 'no-store');
      return services.botChallenge.issue(maxnumber);
    },
  );
}
