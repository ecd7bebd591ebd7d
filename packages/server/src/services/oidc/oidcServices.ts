import type { EndSessionService } from './endSessionService.js';
import type { IdTokenIssuer } from './idTokenIssuer.js';
import type { UserInfoService } from './userInfoService.js';

/**
 * OpenID Connect on top of the OAuth domain (docs/oidc.md): the shape of `services.oidc`. The
 * composition root builds it (`createOidcServices` in `composition/oidc.ts`).
 */
export interface OidcServices {
  /** Adds the `id_token` to token answers of `openid` authorizations. */
  idTokens: IdTokenIssuer;
  userInfo: UserInfoService;
  endSession: EndSessionService;
}
