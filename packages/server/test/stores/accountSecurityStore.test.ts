import { describe, expect, it } from 'vitest';
import { AccountSecurityStore, type SecurityLinkRecord } from '../../src/stores/accountSecurityStore.js';
import { FederationStore } from '../../src/stores/federationStore.js';
import { GuestStore } from '../../src/stores/guestStore.js';
import { OAuthSessionStore } from '../../src/stores/oauthSessionStore.js';
import { PasskeyStore } from '../../src/stores/passkeyStore.js';
import { SessionKeyStore, type WalletPolicy } from '../../src/stores/sessionKeyStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

const policy: WalletPolicy = {
  calls: [{ to: '0x00000000000000000000000000000000000000aa', selectors: ['0xa9059cbb'] }],
  max_value_per_call_wei: '0',
  max_value_per_day_wei: '0',
  token_limits: [],
  valid_for_seconds: 3600,
};
const DAY = 24 * 3_600_000;

describe.each(testDatabases)('account security store ($name)', (database) => {
  const db = useTestDatabase(database);
  const store = () => new AccountSecurityStore(db());

  /** A user with a passkey, a linked identity, a login-page session and an active session key. */
  async function waysIn(userUuid: number, email: string | null = `u${userUuid}@example.com`) {
    if (email === null) {
      await new GuestStore(db()).create(
        { userUuid, secretHash: `g${userUuid}`, clientId: 'app', createdAt: 1 },
        'guest',
      );
    } else {
      await seedUser(db(), userUuid, email);
    }
    await new PasskeyStore(db()).insert({
      id: `pk-${userUuid}`,
      userUuid,
      publicKey: 'pk',
      signCount: 0,
      transports: [],
      backedUp: false,
      createdAt: 10,
      lastUsedAt: undefined,
    });
    await new FederationStore(db()).linkIdentity({
      id: `fid-${userUuid}`,
      provider: 'upstream',
      subject: `sub-${userUuid}`,
      userUuid,
      email: null,
      emailVerified: false,
      displayName: 'Mallory',
      createdAt: 20,
      lastUsedAt: undefined,
    });
    await new OAuthSessionStore(db()).insertSession({
      sessionHash: `s-${userUuid}`,
      userUuid,
      createdAt: 1,
      expiresAt: 9e12,
    });
    const keys = new SessionKeyStore(db());
    const keyAddress = `0x${userUuid.toString(16).padStart(40, '0')}`;
    await keys.insertPendingKey({
      keyAddress,
      userUuid,
      clientId: 'app',
      walletAddress: '0x00000000000000000000000000000000000000bb',
      accountAddress: '0x00000000000000000000000000000000000000cc',
      keySealed: 'v1.sealed',
      policy,
      validUntil: 1_900_000_000,
      createdAt: 5,
    });
    await keys.activateKey(keyAddress, '0xt', 6);
    // A second factor enrolled before the proof (decisions §9: TOTP and recovery codes are ways in).
    await db()
      .insertInto('mfa_totp')
      .values({
        user_uuid: userUuid,
        secret_sealed: 'v1.sealed',
        created_at: 7,
        confirmed_at: 8,
        last_step: 0,
      })
      .execute();
    await db()
      .insertInto('mfa_recovery_codes')
      .values({ user_uuid: userUuid, code_hash: `rc-${userUuid}`, created_at: 8, used_at: null })
      .execute();
    return { keyAddress };
  }

  /** What is left of `userUuid`'s ways in and sessions. */
  async function stateOf(userUuid: number) {
    const d = db();
    const user = await d
      .selectFrom('users')
      .select(['password_hash', 'logins_valid_after', 'logins_kept_jti', 'email_verified_at'])
      .where('user_uuid', '=', userUuid)
      .executeTakeFirstOrThrow();
    const count = async (
      table:
        | 'passkeys'
        | 'federated_identities'
        | 'guest_accounts'
        | 'oauth_sessions'
        | 'mfa_totp'
        | 'mfa_recovery_codes',
    ) => (await d.selectFrom(table).select('user_uuid').where('user_uuid', '=', userUuid).execute()).length;
    return {
      passwordHash: user.password_hash,
      loginsValidAfter: user.logins_valid_after === null ? null : Number(user.logins_valid_after),
      keptJti: user.logins_kept_jti,
      verified: user.email_verified_at !== null,
      passkeys: await count('passkeys'),
      identities: await count('federated_identities'),
      guest: await count('guest_accounts'),
      totp: await count('mfa_totp'),
      recoveryCodes: await count('mfa_recovery_codes'),
      sessions: await count('oauth_sessions'),
      keyStates: (
        await d.selectFrom('session_keys').select('state').where('user_uuid', '=', userUuid).execute()
      ).map((k) => k.state),
      cutoffs: (await store().pendingCutoffs()).filter((c) => c.userUuid === userUuid),
    };
  }

  const proof = (now: number, extra: { keptJti?: string; passwordHash?: string } = {}) => ({
    now,
    cutoff: Math.floor(now / 1000) + 1,
    keptJti: extra.keptJti ?? null,
    reason: 'mailbox_proof_email_verified',
    passwordHash: extra.passwordHash,
  });

  it('a first mailbox proof removes every way in, ends every session and records the cut-off, in one go; the next proof removes nothing', async () => {
    await waysIn(8001);
    await waysIn(8002); // another account: untouched
    const first = await store().proveMailbox(8001, proof(50_000, { keptJti: 'jti-kept' }));
    expect(first).toEqual({
      firstProof: true,
      removed: {
        passkeys: [{ id: 'pk-8001', createdAt: 10 }],
        identities: [{ id: 'fid-8001', provider: 'upstream', displayName: 'Mallory', createdAt: 20 }],
        guestSecret: false,
        totp: true,
      },
    });
    expect(await stateOf(8001)).toEqual({
      passwordHash: 'x',
      loginsValidAfter: 51,
      keptJti: 'jti-kept',
      verified: true,
      passkeys: 0,
      identities: 0,
      guest: 0,
      totp: 0,
      recoveryCodes: 0,
      sessions: 0,
      keyStates: ['revoking'],
      cutoffs: [{ userUuid: 8001, reason: 'mailbox_proof_email_verified', createdAt: 50_000 }],
    });
    expect(await stateOf(8002)).toMatchObject({
      verified: false,
      passkeys: 1,
      identities: 1,
      totp: 1,
      recoveryCodes: 1,
      sessions: 1,
      keyStates: ['active'],
      cutoffs: [],
    });

    // Verified now: a passkey added after the proof stays through the next proof.
    await new PasskeyStore(db()).insert({
      id: 'pk-8001-later',
      userUuid: 8001,
      publicKey: 'pk',
      signCount: 0,
      transports: [],
      backedUp: false,
      createdAt: 60_000,
      lastUsedAt: undefined,
    });
    expect(await store().proveMailbox(8001, proof(70_000))).toEqual({
      firstProof: false,
      removed: { passkeys: [], identities: [], guestSecret: false, totp: false },
    });
    expect(await stateOf(8001)).toMatchObject({ passkeys: 1, loginsValidAfter: 51 });
  });

  it('of two concurrent first proofs exactly one purges; a proof without an address purges nothing', async () => {
    await waysIn(8011);
    const results = await Promise.all([
      store().proveMailbox(8011, proof(80_000)),
      store().proveMailbox(8011, proof(80_001)),
    ]);
    expect(results.map((r) => r.firstProof).sort()).toEqual([false, true]);
    expect(results.find((r) => r.firstProof)!.removed.passkeys).toHaveLength(1);
    expect(await stateOf(8011)).toMatchObject({ passkeys: 0, identities: 0 });

    // A guest (no e-mail) has no mailbox to prove: its guest secret and passkey stay.
    await waysIn(8012, null);
    expect((await store().proveMailbox(8012, proof(81_000))).firstProof).toBe(false);
    expect(await stateOf(8012)).toMatchObject({ guest: 1, passkeys: 1, sessions: 1, verified: false });
  });

  it("a reset's proof stores the new password hash with the purge and lifts the reset hold, even when the address was verified already", async () => {
    await waysIn(8021);
    const reset = await store().proveMailbox(8021, proof(90_000, { passwordHash: 'new-hash' }));
    expect(reset.firstProof).toBe(true);
    expect(await stateOf(8021)).toMatchObject({ passwordHash: 'new-hash', verified: true, passkeys: 0 });

    await store().insertLink('h-8021', link(8021, 'password_changed', 100_000));
    await store().confirmLink('h-8021', cutoff(100_500), () => ({}));
    expect(await store().resetRequired(8021)).toBe(true);
    const again = await store().proveMailbox(8021, proof(110_000, { passwordHash: 'newer-hash' }));
    expect(again.firstProof).toBe(false);
    expect(await store().resetRequired(8021)).toBe(false);
    expect(await stateOf(8021)).toMatchObject({ passwordHash: 'newer-hash', loginsValidAfter: 111 });
  });

  /** A backend code, a link ticket, a console login ticket and an identity link under way, all minted before. */
  async function pending(userUuid: number) {
    const d = db();
    await d
      .insertInto('backend_codes')
      .values({
        code_hash: `bc-${userUuid}`,
        client_id: 'app',
        user_uuid: userUuid,
        slot_id: 'slot',
        redirect_uri: 'https://app.example/cb',
        created_at: 1,
        expires_at: 9e12,
        used_at: null,
        grant_id: null,
      })
      .execute();
    for (const purpose of ['link', 'console_login']) {
      await d
        .insertInto('federation_tickets')
        .values({
          ticket_hash: `ft-${purpose}-${userUuid}`,
          purpose,
          user_uuid: userUuid,
          provider: 'upstream',
          created: 1,
          expires_at: 9e12,
          binder_hash: null,
          auth_time: null,
        })
        .execute();
    }
    await d
      .insertInto('federation_flows')
      .values({
        state_hash: `ff-${userUuid}`,
        provider: 'upstream',
        purpose: 'link',
        link_user_uuid: userUuid,
        return_to: '/',
        browser_hash: 'b',
        nonce: 'n',
        code_verifier_sealed: 'v1.sealed',
        created_at: 1,
        expires_at: 9e12,
      })
      .execute();
  }
  /** What of `pending(userUuid)` can still be used. */
  async function pendingOf(userUuid: number) {
    const d = db();
    return {
      backendCodes: (
        await d
          .selectFrom('backend_codes')
          .select('code_hash')
          .where('user_uuid', '=', userUuid)
          .where('used_at', 'is', null)
          .execute()
      ).length,
      tickets: (
        await d
          .selectFrom('federation_tickets')
          .select('ticket_hash')
          .where('user_uuid', '=', userUuid)
          .execute()
      ).length,
      linkFlows: (
        await d
          .selectFrom('federation_flows')
          .select('state_hash')
          .where('link_user_uuid', '=', userUuid)
          .execute()
      ).length,
    };
  }

  it('a mailbox proof and a "this wasn\'t me" confirmation leave no backend code, federation ticket or identity link of the account usable; another account keeps its own', async () => {
    await waysIn(8061);
    await waysIn(8062);
    await waysIn(8063);
    for (const u of [8061, 8062, 8063]) await pending(u);

    expect((await store().proveMailbox(8061, proof(500_000))).firstProof).toBe(true);
    expect(await pendingOf(8061)).toEqual({ backendCodes: 0, tickets: 0, linkFlows: 0 });

    await store().insertLink('h-8062', link(8062, 'password_changed', 500_000));
    expect(await store().confirmLink('h-8062', cutoff(500_500), () => ({}))).toBeDefined();
    expect(await pendingOf(8062)).toEqual({ backendCodes: 0, tickets: 0, linkFlows: 0 });

    expect(await pendingOf(8063)).toEqual({ backendCodes: 1, tickets: 2, linkFlows: 1 });
  });

  const link = (
    userUuid: number,
    change: string,
    createdAt: number,
    subject?: string,
  ): SecurityLinkRecord => ({
    userUuid,
    change,
    subject,
    createdAt,
    expiresAt: createdAt + 7 * DAY,
  });
  const cutoff = (now: number) => ({
    now,
    cutoff: Math.floor(now / 1000) + 1,
    keptJti: null,
    reason: 'account_secured',
  });

  it('a "this wasn\'t me" link is taken once under concurrency: one confirmation ends the sessions, undoes the reported passkey and sets the hold', async () => {
    await waysIn(8031);
    await new PasskeyStore(db()).insert({
      id: 'pk-8031-own',
      userUuid: 8031,
      publicKey: 'pk',
      signCount: 0,
      transports: [],
      backedUp: false,
      createdAt: 1,
      lastUsedAt: undefined,
    });
    await store().insertLink('h-8031', link(8031, 'passkey_added', 200_000, 'pk-8031'));
    expect(await store().liveLink('h-8031', 200_001)).toEqual(
      link(8031, 'passkey_added', 200_000, 'pk-8031'),
    );
    expect(await store().resetRequired(8031)).toBe(false);

    const undone: string[] = [];
    const confirmations = await Promise.all(
      [0, 1, 2].map(() =>
        store().confirmLink('h-8031', cutoff(201_000), (l) => {
          undone.push(l.subject!);
          return { passkeyId: l.subject! };
        }),
      ),
    );
    expect(confirmations.filter((c) => c !== undefined)).toHaveLength(1);
    expect(undone).toEqual(['pk-8031']);
    expect(await store().resetRequired(8031)).toBe(true);
    const state = await stateOf(8031);
    expect(state).toMatchObject({
      passkeys: 1, // the owner's own passkey stays; the reported one is gone
      identities: 1,
      sessions: 0,
      keyStates: ['revoking'],
      loginsValidAfter: 202,
      cutoffs: [{ userUuid: 8031, reason: 'account_secured', createdAt: 201_000 }],
    });
    expect(await new PasskeyStore(db()).find('pk-8031')).toBeUndefined();
    // Used: it no longer shows its page nor acts.
    expect(await store().liveLink('h-8031', 201_001)).toBeUndefined();
    expect(await store().confirmLink('h-8031', cutoff(202_000), () => ({}))).toBeUndefined();
  });

  it('an unknown or expired link changes nothing; a reported identity is undone by id, or by provider from its mail on', async () => {
    await waysIn(8041);
    expect(await store().confirmLink('h-unknown', cutoff(300_000), () => ({}))).toBeUndefined();
    await store().insertLink('h-8041-old', link(8041, 'identity_linked', 10_000, 'id:fid-8041'));
    const late = 10_000 + 7 * DAY + 1;
    expect(await store().liveLink('h-8041-old', late)).toBeUndefined();
    expect(await store().confirmLink('h-8041-old', cutoff(late), () => ({ identityId: 'fid-8041' }))).toBe(
      undefined,
    );
    expect(await store().resetRequired(8041)).toBe(false);
    expect(await stateOf(8041)).toMatchObject({
      identities: 1,
      sessions: 1,
      keyStates: ['active'],
      cutoffs: [],
    });

    // A link stored later sweeps the expired ones.
    await store().insertLink('h-8041', link(8041, 'identity_linked', late, 'provider:upstream'));
    const rows = await db().selectFrom('account_security_links').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).not.toContain('h-8041-old');

    // By provider: only an identity of that provider linked from a minute before the mail on goes.
    await new FederationStore(db()).linkIdentity({
      id: 'fid-8041-new',
      provider: 'upstream',
      subject: 'sub-8041-new',
      userUuid: 8041,
      email: null,
      emailVerified: false,
      displayName: null,
      createdAt: late,
      lastUsedAt: undefined,
    });
    const confirmed = await store().confirmLink('h-8041', cutoff(late + 5), () => ({ provider: 'upstream' }));
    expect(confirmed).toMatchObject({ userUuid: 8041, change: 'identity_linked' });
    const left = await db()
      .selectFrom('federated_identities')
      .select('id')
      .where('user_uuid', '=', 8041)
      .execute();
    expect(left.map((i) => i.id)).toEqual(['fid-8041']);
  });

  it('a cut-off row stays until its grants are revoked; finishing an older one leaves a newer one', async () => {
    await waysIn(8051);
    await store().insertLink('h-8051-a', link(8051, 'password_changed', 400_000));
    await store().insertLink('h-8051-b', link(8051, 'password_changed', 400_000));
    await store().confirmLink('h-8051-a', cutoff(401_000), () => ({}));
    await store().confirmLink('h-8051-b', cutoff(402_000), () => ({}));
    // One row per account: the newer cut-off replaced the older one.
    expect((await stateOf(8051)).cutoffs).toEqual([
      { userUuid: 8051, reason: 'account_secured', createdAt: 402_000 },
    ]);
    await store().finishCutoff(8051, 401_000);
    expect((await stateOf(8051)).cutoffs).toHaveLength(1);
    await store().finishCutoff(8051, 402_000);
    expect((await stateOf(8051)).cutoffs).toEqual([]);
    // The hold outlives the finished cut-off: only a reset lifts it.
    expect(await store().resetRequired(8051)).toBe(true);
    expect(await new UserStore(db()).findById(8051)).toBeDefined();
  });
});
