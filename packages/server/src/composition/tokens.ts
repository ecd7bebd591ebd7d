import type { Config } from '../config.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import { Authenticator } from '../services/tokens/authenticator.js';
import { TokenService } from '../services/tokens/tokenService.js';
import { SigningKeyStore } from '../stores/signingKeyStore.js';

/**
 * The signing keys, the tokens signed with them and the bearer check every route goes through. Built
 * before OAuth, which signs with them and plugs its revocation list into the authenticator; the accounts
 * domain adds the login cut-off of password changes.
 */
export async function createTokenDomain(deps: {
  db: Db;
  secretBox: SecretBox;
  config: Pick<Config, 'publicUrl'>;
}): Promise<{ tokens: TokenService; authenticator: Authenticator }> {
  const tokens = new TokenService(new SigningKeyStore(deps.db), deps.secretBox, deps.config.publicUrl);
  await tokens.init();
  return { tokens, authenticator: new Authenticator(tokens) };
}
