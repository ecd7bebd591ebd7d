import { SUPPORTED_LOCALES } from '../../i18n/locales.js';
import { ACR_VALUES_SUPPORTED } from './authenticationContext.js';
import { PROMPT_VALUES } from './authorizationPrompt.js';
import { SUPPORTED_CLAIMS, SUPPORTED_SCOPES } from './scopes.js';
import { SIGNING_ALG } from '../tokens/tokenService.js';

/** Paths of the OpenID Connect endpoints (the OAuth ones are those of docs/oauth.md). */
export const USERINFO_PATH = '/oauth/userinfo';
export const END_SESSION_PATH = '/oauth/end_session';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/**
 * `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3). The OAuth fields carry the
 * same values as the RFC 8414 document at `/.well-known/oauth-authorization-server` (a test keeps
 * the two in step); the rest describes what docs/oidc.md implements.
 */
export function openidConfiguration(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    device_authorization_endpoint: `${issuer}/oauth/device_authorization`,
    userinfo_endpoint: `${issuer}${USERINFO_PATH}`,
    end_session_endpoint: `${issuer}${END_SESSION_PATH}`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
      'client_credentials',
    ],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    userinfo_signing_alg_values_supported: ['none'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    claims_supported: [...SUPPORTED_CLAIMS],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: [...PROMPT_VALUES],
    acr_values_supported: [...ACR_VALUES_SUPPORTED],
    // The languages of the login, consent and device pages and of the mails (decisions §9), for `ui_locales`.
    ui_locales_supported: [...SUPPORTED_LOCALES],
    service_documentation: `${issuer}/docs`,
  };
}
