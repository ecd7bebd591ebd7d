import { KeyedFingerprint } from '../crypto/keyedFingerprint.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import { MfaService } from '../services/mfa/mfaService.js';
import type { SecondFactorGate } from '../services/mfa/signIn.js';
import type { TokenService } from '../services/tokens/tokenService.js';
import { MfaStore } from '../stores/mfaStore.js';

/** HKDF info of the recovery-code and `mfa_token` HMAC key (changing it voids every stored one). */
const MFA_FINGERPRINT_PURPOSE = 'dauth/mfa-codes/v1';

/**
 * Second factors (docs/mfa.md): TOTP, recovery codes and the sign-in's second step. Every sign-in whose
 * credential is one factor (password, federated) is routed through the service as its gate, so an account
 * with TOTP gets an `mfa_token` on every such way in, the offline CLI's included.
 */
export function createMfaDomain(deps: {
  db: Db;
  secretBox: SecretBox;
  masterKey: Buffer;
  tokens: TokenService;
  /** The `issuer` of the `otpauth://` URI an authenticator app shows beside the code. */
  issuer: string;
  /** The services whose sign-ins need the second step. */
  signIns: { useSecondFactor(gate: SecondFactorGate): void }[];
}): { mfa: MfaService } {
  const mfa = new MfaService(
    new MfaStore(deps.db),
    deps.tokens,
    deps.secretBox,
    new KeyedFingerprint(deps.masterKey, MFA_FINGERPRINT_PURPOSE),
    { issuer: deps.issuer },
  );
  for (const service of deps.signIns) service.useSecondFactor(mfa);
  return { mfa };
}
