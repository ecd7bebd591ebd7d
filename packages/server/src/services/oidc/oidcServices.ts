import type { BrowserSessionService } from '../oauth/browserSessions.js';
import type { ClientService } from '../oauth/clientService.js';
import type { MainWalletLookup } from '../oauth/oauthService.js';
import type { LoginStatusService } from '../status/loginStatusService.js';
import type { TokenService } from '../tokens/tokenService.js';
import { EndSessionService } from './endSessionService.js';
import { IdTokenIssuer } from './idTokenIssuer.js';
import type { UserDirectory } from './userClaims.js';
import { UserInfoService } from './userInfoService.js';

/** OpenID Connect on top of the OAuth domain (docs/oidc.md). */
export interface OidcServices {
  /** Adds the `id_token` to token answers of `openid` authorizations. */
  idTokens: IdTokenIssuer;
  userInfo: UserInfoService;
  endSession: EndSessionService;
}

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
