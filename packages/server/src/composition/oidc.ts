import type { BrowserSessionService } from '../services/oauth/browserSessions.js';
import type { ClientService } from '../services/oauth/clientService.js';
import type { MainWalletLookup } from '../services/oauth/oauthService.js';
import { EndSessionService } from '../services/oidc/endSessionService.js';
import { IdTokenIssuer } from '../services/oidc/idTokenIssuer.js';
import type { OidcServices } from '../services/oidc/oidcServices.js';
import type { UserDirectory } from '../services/oidc/userClaims.js';
import { UserInfoService } from '../services/oidc/userInfoService.js';
import type { LoginStatusService } from '../services/status/loginStatusService.js';
import type { TokenService } from '../services/tokens/tokenService.js';

/** Wires OpenID Connect (docs/oidc.md): id_tokens, userinfo and RP-initiated logout over the OAuth domain. */
export function createOidcServices(deps: {
  tokens: TokenService;
  users: UserDirectory;
  wallets: MainWalletLookup;
  clients: ClientService;
  sessions: BrowserSessionService;
  loginStatus: LoginStatusService;
  issuer: string;
}): OidcServices {
  return {
    idTokens: new IdTokenIssuer({ signer: deps.tokens, users: deps.users, issuer: deps.issuer }),
    userInfo: new UserInfoService({ users: deps.users, wallets: deps.wallets }),
    endSession: new EndSessionService({
      keys: deps.tokens,
      clients: deps.clients,
      sessions: deps.sessions,
      loginStatus: deps.loginStatus,
      issuer: deps.issuer,
    }),
  };
}
