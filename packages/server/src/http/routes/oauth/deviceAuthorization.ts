import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { authenticateClient } from './clientAuthentication.js';
import { clientCredentials, clientRateLimit, noStore, optionalString as str } from './clientEndpoint.js';

/** Where the player enters the user code: short, to be typed from a TV screen (`device/index.ts`). */
export const VERIFICATION_PATH = '/device';

const DeviceAuthorizationBody = Type.Object(
  { ...clientCredentials, scope: str(1000) },
  { additionalProperties: true },
);

const DeviceAuthorizationResult = Type.Object({
  device_code: Type.String(),
  user_code: Type.String({ description: 'Eight letters shown as XXXX-XXXX' }),
  verification_uri: Type.String(),
  verification_uri_complete: Type.String(),
  expires_in: Type.Integer({ description: 'Seconds' }),
  interval: Type.Integer({ description: 'Seconds between polls of the token endpoint' }),
});

/**
 * `POST /oauth/device_authorization` (RFC 8628 §3.1–3.2): a console, TV or launcher asks for a
 * device code and a user code. Client authentication as at `/oauth/token` (every dauth app is
 * confidential: a launcher's backend holds the secret).
 */
export async function deviceAuthorizationRoutes(app: App, services: Services): Promise<void> {
  const { clients, devices, config } = services;
  const verificationUri = `${config.publicUrl}${VERIFICATION_PATH}`;

  app.post(
    '/oauth/device_authorization',
    {
      schema: {
        tags: ['oauth'],
        summary:
          'Device authorization request (RFC 8628): a device code and the user code to enter at /device',
        description:
          'JSON or application/x-www-form-urlencoded; client authentication as at `/oauth/token`. The device then polls `/oauth/token` with `grant_type=urn:ietf:params:oauth:grant-type:device_code` every `interval` seconds.',
        body: DeviceAuthorizationBody,
        response: { 200: DeviceAuthorizationResult, ...errorResponses(400, 401, 413, 415, 429) },
      },
      onRequest: noStore,
      config: { errorStyle: 'oauth', rateLimit: clientRateLimit(config) },
    },
    async (request) => {
      const client = await authenticateClient(request, request.body, clients);
      const started = await devices.start(client, request.body.scope);
      return {
        device_code: started.deviceCode,
        user_code: started.userCode,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${started.userCode}`,
        expires_in: started.expiresIn,
        interval: started.interval,
      };
    },
  );
}
