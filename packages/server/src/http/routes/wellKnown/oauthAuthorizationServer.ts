import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { SUPPORTED_LOCALES } from '../../../i18n/locales.js';
import type { App } from '../../types.js';

/** `GET /.well-known/oauth-authorization-server`: the authorization server metadata (RFC 8414). */
export async function oauthMetadataRoutes(app: App, services: Services): Promise<void> {
  const issuer = services.config.publicUrl;
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    device_authorization_endpoint: `${issuer}/oauth/device_authorization`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
      'client_credentials',
    ],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    // RFC 8414 §2: the languages of the user interface (decisions §9), for `ui_locales`.
    ui_locales_supported: [...SUPPORTED_LOCALES],
    service_documentation: `${issuer}/docs`,
  };

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Authorization server metadata (RFC 8414)',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return metadata;
    },
  );
}
