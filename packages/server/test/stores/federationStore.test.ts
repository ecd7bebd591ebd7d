import { describe, expect, it } from 'vitest';
import { type FlowRecord, FederationStore, type IdentityRecord } from '../../src/stores/federationStore.js';
import { GuestStore } from '../../src/stores/guestStore.js';
import { PasskeyStore } from '../../src/stores/passkeyStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('federation store ($name)', (database) => {
  const db = useTestDatabase(database);
  const identity = (id: string, userUuid: number, subject = `sub-${id}`): IdentityRecord => ({
    id,
    provider: 'google',
    subject,
    userUuid,
    email: null,
    emailVerified: false,
    displayName: 'Ann',
    createdAt: 10,
    lastUsedAt: undefined,
  });
  const account = (userUuid: number, email: string | null = null) => ({
    userUuid,
    email,
    nickname: 'Ann',
    createdAt: 20,
  });

  it('creates a password-less account with its identity, the verified e-mail marked verified', async () => {
    const store = new FederationStore(db());
    expect(await store.createAccount(account(7001, 'ann@example.com'), identity('fid_a', 7001))).toBe(
      'created',
    );
    const users = new UserStore(db());
    expect(await users.findById(7001)).toMatchObject({ email: 'ann@example.com', passwordHash: '' });
    expect(await users.emailVerified(7001)).toBe(true);
    expect(await store.findIdentity('google', 'sub-fid_a')).toEqual(identity('fid_a', 7001));
    expect(await store.listIdentities(7001)).toEqual([identity('fid_a', 7001)]);
  });

  it('refuses an e-mail another account has, and a taken (provider, subject), writing nothing', async () => {
    const store = new FederationStore(db());
    await seedUser(db(), 7002, 'owner@example.com');
    expect(await store.createAccount(account(7003, 'owner@example.com'), identity('fid_b', 7003))).toBe(
      'email_taken',
    );
    expect(await new UserStore(db()).findById(7003)).toBeUndefined();
    expect(await store.findIdentity('google', 'sub-fid_b')).toBeUndefined();

    await store.createAccount(account(7004), identity('fid_c', 7004, 'same-subject'));
    expect(await store.createAccount(account(7005), identity('fid_d', 7005, 'same-subject'))).toBe(
      'identity_taken',
    );
    expect(await new UserStore(db()).findById(7005)).toBeUndefined();
    // Linking the same (provider, subject) to another user is refused too.
    expect(await store.linkIdentity(identity('fid_e', 7002, 'same-subject'))).toBe(false);
    expect(await store.linkIdentity(identity('fid_f', 7002, 'other-subject'))).toBe(true);
  });

  it('never unlinks the last way in; a password, a passkey, another identity or a guest secret is one', async () => {
    const store = new FederationStore(db());
    await store.createAccount(account(7010), identity('fid_g', 7010));
    expect(await store.removeIdentity(7010, 'fid_g')).toBe('last');
    expect(await store.removeIdentity(7010, 'fid_nope')).toBe('not_found');
    expect(await store.removeIdentity(7999, 'fid_g')).toBe('not_found');
    // Another identity: either one may go, then not the other.
    expect(await store.linkIdentity(identity('fid_h', 7010))).toBe(true);
    expect(await store.removeIdentity(7010, 'fid_g')).toBe('removed');
    expect(await store.removeIdentity(7010, 'fid_h')).toBe('last');
    // A passkey is a way in.
    await new PasskeyStore(db()).insert({
      id: 'cred-7010',
      userUuid: 7010,
      publicKey: 'pk',
      signCount: 0,
      transports: [],
      backedUp: false,
      createdAt: 1,
      lastUsedAt: undefined,
    });
    expect(await store.removeIdentity(7010, 'fid_h')).toBe('removed');
    // A password is a way in.
    await seedUser(db(), 7011);
    await store.linkIdentity(identity('fid_i', 7011));
    expect(await store.removeIdentity(7011, 'fid_i')).toBe('removed');
  });

  it('two concurrent unlinks of an account’s two identities leave one', async () => {
    const store = new FederationStore(db());
    await store.createAccount(account(7020), identity('fid_j', 7020));
    await store.linkIdentity(identity('fid_k', 7020));
    const outcomes = await Promise.all([
      store.removeIdentity(7020, 'fid_j'),
      store.removeIdentity(7020, 'fid_k'),
    ]);
    expect(outcomes.sort()).toEqual(['last', 'removed']);
    expect(await store.listIdentities(7020)).toHaveLength(1);
  });

  it('a guest upgrades by an identity: guest row gone, identity linked, e-mail set when given', async () => {
    const guests = new GuestStore(db());
    await guests.create(
      { userUuid: 7030, secretHash: 'ab'.repeat(32), clientId: 'app', createdAt: 1 },
      'guest',
    );
    const upgrade = {
      kind: 'identity' as const,
      identity: identity('fid_l', 7030),
      email: 'g@example.com',
      now: 5,
    };
    expect(await guests.upgrade(7030, upgrade)).toBe('upgraded');
    expect(await guests.find(7030)).toBeUndefined();
    expect(await new FederationStore(db()).listIdentities(7030)).toHaveLength(1);
    expect(await new UserStore(db()).findById(7030)).toMatchObject({ email: 'g@example.com' });
    // A guest whose identity is taken meanwhile stays a guest.
    await guests.create(
      { userUuid: 7031, secretHash: 'cd'.repeat(32), clientId: 'app', createdAt: 1 },
      'guest',
    );
    const taken = { ...upgrade, identity: identity('fid_m', 7031, 'sub-fid_l'), email: null };
    expect(await guests.upgrade(7031, taken)).toBe('identity_taken');
    expect(await guests.find(7031)).toBeDefined();
  });

  it('takes a flow and a ticket once', async () => {
    const store = new FederationStore(db());
    const flow: FlowRecord = {
      stateHash: 'a'.repeat(64),
      provider: 'google',
      purpose: 'link',
      linkUserUuid: 7010,
      returnTo: '/console',
      browserHash: 'b'.repeat(64),
      nonce: 'n',
      codeVerifierSealed: 'v1.x',
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    };
    await store.saveFlow(flow);
    const taken = await Promise.all([store.takeFlow(flow.stateHash), store.takeFlow(flow.stateHash)]);
    expect(taken.filter(Boolean)).toEqual([flow]);
    const ticket = {
      ticketHash: 'c'.repeat(64),
      purpose: 'console_login' as const,
      userUuid: 7010,
      provider: undefined,
      created: true,
      expiresAt: Date.now() + 60_000,
    };
    await store.saveTicket(ticket, Date.now());
    expect(await store.takeTicket(ticket.ticketHash, 'link')).toBeUndefined();
    expect(await store.takeTicket(ticket.ticketHash, 'console_login')).toEqual(ticket);
    expect(await store.takeTicket(ticket.ticketHash, 'console_login')).toBeUndefined();
  });

  it('keeps a link ticket’s binder hash and a login ticket’s auth_time; finding a ticket does not take it', async () => {
    const store = new FederationStore(db());
    const link = {
      ticketHash: 'd'.repeat(64),
      purpose: 'link' as const,
      userUuid: 7011,
      provider: 'google',
      created: false,
      expiresAt: Date.now() + 60_000,
      binderHash: 'e'.repeat(64),
      authTime: undefined,
    };
    const login = {
      ...link,
      ticketHash: 'f'.repeat(64),
      purpose: 'console_login' as const,
      binderHash: undefined,
      authTime: 1_790_000_000,
    };
    await store.saveTicket(link, Date.now());
    await store.saveTicket(login, Date.now());
    expect(await store.findTicket(link.ticketHash, 'link')).toEqual(link);
    expect(await store.findTicket(link.ticketHash, 'console_login')).toBeUndefined();
    expect(await store.takeTicket(link.ticketHash, 'link')).toEqual(link);
    expect(await store.findTicket(link.ticketHash, 'link')).toBeUndefined();
    expect(await store.takeTicket(login.ticketHash, 'console_login')).toEqual(login);
  });
});
