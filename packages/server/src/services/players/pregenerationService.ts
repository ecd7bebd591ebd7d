import { randomUUID } from 'node:crypto';
import { AppError, conflict, invalidField } from '../../errors.js';
import type { PregeneratedPlayerStore } from '../../stores/pregeneratedPlayerStore.js';
import { newUserUuid, normaliseEmail } from '../accounts/accountService.js';
import { MAIN_WALLET_SALT } from '../custody/registerPin.js';
import type { Address, WalletChain } from '../custody/walletChain.js';

/** A fresh owner key for a wallet: its address and its mnemonic sealed for the account (`CustodySeal`). */
export interface OwnerKeyMaker {
  newOwner(userUuid: number): Promise<{ owner: Address; mnemonicSealed: string }>;
}

export const playerExists = () =>
  conflict(
    'player_exists',
    'An account already has this e-mail or platform identity: it cannot be pre-generated (the player signs in and grants the app)',
  );

export const emailVerificationRequired = () =>
  new AppError(
    403,
    'email_verification_required',
    'This account was prepared for this e-mail address: open the link in the mail we sent to prove the address, then sign in',
  );

/**
 * Pre-generated players (decisions §9, docs/players.md): a studio makes an account by e-mail or by platform
 * identity before the player's first sign-in, with the counterfactual address of its main wallet (no gas:
 * nothing is on chain until its first operation), so it can airdrop at once. The same e-mail or identity
 * again answers the same account (`created: false`).
 *
 * The person who later proves that e-mail gets that account: a sign-up with the address gives the waiting
 * account its e-mail and password (`claimForSignup`), but no sign-in opens it (`checkSignIn`, 403
 * `email_verification_required`) until the mailbox is proved by the sign-up mail's link or a password reset;
 * a sign-up alone never does. A platform identity is linked at once: the platform's sign-in proves it.
 */
export class PregenerationService {
  constructor(
    private readonly store: PregeneratedPlayerStore,
    private readonly owners: OwnerKeyMaker,
    private readonly chain: Pick<WalletChain, 'walletAddress'>,
    /** The identities' provider column of a configured provider (web or platform), undefined when none. */
    private readonly providers: { identityKeyOf(name: string): string | undefined },
    private readonly now: () => number = Date.now,
  ) {}

  async pregenerate(input: {
    orgId: string;
    clientId: string;
    email?: string | undefined;
    platform?: { provider: string; subject: string } | undefined;
  }): Promise<{ userUuid: number; walletAddress: string; created: boolean }> {
    if ((input.email === undefined) === (input.platform === undefined)) {
      throw invalidField('email', 'Give either email or platform {provider, subject}');
    }
    let email: string | null = null;
    if (input.email !== undefined) {
      email = normaliseEmail(input.email);
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320) {
        throw invalidField('email', 'email is not a valid e-mail address');
      }
    }
    let platform: { provider: string; subject: string } | undefined;
    if (input.platform !== undefined) {
      // Stored under the provider column its sign-ins use (`steam` for every Steam entry).
      const provider = this.providers.identityKeyOf(input.platform.provider);
      if (provider === undefined) {
        throw invalidField(
          'platform.provider',
          `No identity provider is configured as ${JSON.stringify(input.platform.provider)}`,
        );
      }
      if (input.platform.subject.length === 0 || input.platform.subject.length > 255) {
        throw invalidField('platform.subject', 'platform.subject must be 1 to 255 characters');
      }
      platform = { provider, subject: input.platform.subject };
    }
    const existing = await this.#existing(email, platform);
    if (existing) return { ...existing, created: false };

    for (let attempt = 0; attempt < 5; attempt++) {
      const userUuid = newUserUuid();
      const { owner, mnemonicSealed } = await this.owners.newOwner(userUuid);
      const address = await this.chain.walletAddress(owner, MAIN_WALLET_SALT);
      const now = this.now();
      const outcome = await this.store.create({
        userUuid,
        nickname: 'player',
        orgId: input.orgId,
        clientId: input.clientId,
        email,
        wallet: {
          address,
          userUuid,
          kind: 'main',
          salt: MAIN_WALLET_SALT,
          initialOwner: owner,
          owner,
          deployed: false,
          createdAt: now,
        },
        mnemonicSealed,
        identity:
          platform === undefined
            ? null
            : {
                id: randomUUID(),
                provider: platform.provider,
                subject: platform.subject,
                userUuid,
                email: null,
                emailVerified: false,
                displayName: null,
                createdAt: now,
                lastUsedAt: undefined,
              },
        createdAt: now,
      });
      if (outcome === 'created') return { userUuid, walletAddress: address, created: true };
      if (outcome === 'taken') throw playerExists();
      if (outcome === 'exists') {
        const raced = await this.#existing(email, platform);
        if (raced) return { ...raced, created: false };
      }
    }
    throw new AppError(500, 'internal_error', 'Could not allocate a user id');
  }

  /**
   * The sign-in gate (every login JWT and login-page session): an account pre-generated by e-mail opens
   * only once that e-mail is proved. A pre-generated account's first sign-in records its claim.
   */
  async checkSignIn(userUuid: number): Promise<void> {
    const state = await this.store.signInState(userUuid);
    if (state === 'awaiting_proof') throw emailVerificationRequired();
    if (state === 'unclaimed') await this.store.markClaimed(userUuid, this.now());
  }

  /** A sign-up with a pre-generated e-mail: the waiting account's uuid, now holding e-mail and password. */
  claimForSignup(
    email: string,
    account: { passwordHash: string; nickname: string },
  ): Promise<number | undefined> {
    return this.store.claimForSignup(email, account);
  }

  async #existing(
    email: string | null,
    platform: { provider: string; subject: string } | undefined,
  ): Promise<{ userUuid: number; walletAddress: string } | undefined> {
    const found =
      email !== null
        ? await this.store.findByEmail(email)
        : await this.store.findByPlatform(platform!.provider, platform!.subject);
    return found && { userUuid: found.userUuid, walletAddress: found.walletAddress };
  }
}
