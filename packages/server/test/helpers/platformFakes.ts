import { execFileSync } from 'node:child_process';
import { createPrivateKey, createSign, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JWTPayload } from 'jose';
import { newSigningKey, signIdToken, type TestSigningKey } from './oidcUpstream.js';

/**
 * Local stand-ins for the four platforms of sign-in inside the game (docs/federation.md "Platform
 * sign-in", "Trying it locally"), each speaking the protocol its platform documents, on 127.0.0.1:
 *   - a Steam partner Web API (`ISteamUserAuth/AuthenticateUserTicket/v1`) that knows the tickets it
 *     issued;
 *   - an EOS-style ID token issuer (a JWKS over HTTP and RS256 tokens);
 *   - a Game Center key server (the signing certificate in DER) with a certificate chain made for the
 *     test by openssl (a root, the leaf it issues, and a foreign root with its own leaf), and the
 *     game's identity-verification signature;
 *   - Google's token endpoint and the Play Games `games/v1/players/me`.
 * Each records what it was asked. `scripts/platformFakes.ts` starts them all for a local try.
 */

type Handler = (
  request: http.IncomingMessage,
  body: string,
  url: URL,
) => { status: number; body: unknown; type?: string };

async function serve(handler: Handler): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const answer = handler(request, Buffer.concat(chunks).toString('utf8'), url);
      if (Buffer.isBuffer(answer.body)) {
        response.writeHead(answer.status, { 'content-type': answer.type ?? 'application/octet-stream' });
        response.end(answer.body);
        return;
      }
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------- Steam

export interface SteamTicketFacts {
  steamid: string;
  /** Family sharing: the owner of the game (default the player). */
  ownersteamid?: string;
  vacbanned?: boolean;
  publisherbanned?: boolean;
  /** The app and identity the game asked the ticket for (default the server's). */
  appId?: string;
  identity?: string;
}

export interface SteamWebApi {
  /** `api_base_url` of a `steam_ticket` entry. */
  base: string;
  key: string;
  appId: string;
  identity: string;
  /** A new ticket (hex) for these facts, as GetAuthTicketForWebApi returns. */
  issue(facts: SteamTicketFacts): string;
  /** Every AuthenticateUserTicket query received. */
  requests: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * Steamworks' partner Web API, for AuthenticateUserTicket: a wrong key is HTTP 403 (as Steam answers); an
 * unknown ticket, or one made for another app id or identity, is `{response: {error: {errorcode: 101,
 * errordesc: "Invalid ticket"}}}`; a known one answers its params.
 */
export async function startSteamWebApi(
  options: { key?: string; appId?: string; identity?: string } = {},
): Promise<SteamWebApi> {
  const key = options.key ?? 'PUBLISHERKEY0123456789ABCDEF';
  const appId = options.appId ?? '480';
  const identity = options.identity ?? 'dauth';
  const tickets = new Map<string, SteamTicketFacts>();
  const requests: URLSearchParams[] = [];
  const server = await serve((_request, _body, url) => {
    if (url.pathname !== '/ISteamUserAuth/AuthenticateUserTicket/v1/') return { status: 404, body: {} };
    requests.push(url.searchParams);
    if (url.searchParams.get('key') !== key) return { status: 403, body: 'Forbidden' };
    const facts = tickets.get((url.searchParams.get('ticket') ?? '').toLowerCase());
    if (
      !facts ||
      url.searchParams.get('appid') !== (facts.appId ?? appId) ||
      url.searchParams.get('identity') !== (facts.identity ?? identity)
    ) {
      return { status: 200, body: { response: { error: { errorcode: 101, errordesc: 'Invalid ticket' } } } };
    }
    return {
      status: 200,
      body: {
        response: {
          params: {
            result: 'OK',
            steamid: facts.steamid,
            ownersteamid: facts.ownersteamid ?? facts.steamid,
            vacbanned: facts.vacbanned ?? false,
            publisherbanned: facts.publisherbanned ?? false,
          },
        },
      },
    };
  });
  return {
    base: server.base,
    key,
    appId,
    identity,
    requests,
    issue(facts) {
      const ticket = randomBytes(120).toString('hex').toUpperCase();
      tickets.set(ticket.toLowerCase(), facts);
      return ticket;
    },
    close: server.close,
  };
}

// ------------------------------------------------------------------------------------------------ EOS

export interface EosIssuer {
  /** `issuer` and `jwks_uri` of an `epic` entry. */
  issuer: string;
  jwksUri: string;
  clientId: string;
  /** An EOS Connect ID token for a product user id (claims override the defaults; `key` another signer). */
  mint(productUserId: string, claims?: JWTPayload, key?: TestSigningKey): Promise<string>;
  /** A key the JWKS does not publish: its tokens are a foreign key's. */
  foreignKey: TestSigningKey;
  jwksFetches: number;
  close(): Promise<void>;
}

export async function startEosIssuer(options: { clientId?: string } = {}): Promise<EosIssuer> {
  const key = await newSigningKey('eos-1');
  const foreignKey = await newSigningKey('eos-1');
  const clientId = options.clientId ?? 'xyza7891eosclient';
  let jwksFetches = 0;
  const server = await serve((_request, _body, url) => {
    if (url.pathname !== '/auth/v1/oauth/jwks') return { status: 404, body: {} };
    jwksFetches++;
    return { status: 200, body: { keys: [key.publicJwk] } };
  });
  const issuer = `${server.base}/auth/v1/oauth`;
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    clientId,
    foreignKey,
    get jwksFetches() {
      return jwksFetches;
    },
    mint(productUserId, claims = {}, signer = key) {
      const now = Math.floor(Date.now() / 1000);
      return signIdToken(signer, {
        iss: issuer,
        aud: clientId,
        sub: productUserId,
        iat: now,
        exp: now + 3600,
        pfsid: 'deployment',
        act: { eat: 'epicgames', eaid: randomBytes(16).toString('hex'), pltfm: 'other' },
        jti: randomBytes(8).toString('hex'),
        ...claims,
      });
    },
    close: server.close,
  };
}

// ---------------------------------------------------------------------------------------- Game Center

export interface GameCenterKeys {
  /** `public_key_url` base: `${base}/public-key/gc-test.cer` (trusted) or `gc-foreign.cer`. */
  base: string;
  /** The trust anchor (`trust_anchor`) the test's leaves chain to (two roots). */
  anchorPem: string;
  /** The first root alone: the chained leaf does not reach it. */
  firstRootPem: string;
  trustedUrl: string;
  /** A certificate issued by another root: its signatures verify, its chain does not reach the anchor. */
  foreignUrl: string;
  /** A certificate issued by an intermediate the anchor lacks, named by its AIA (served here). */
  chainedUrl: string;
  /** The credential a game sends (timestamp now unless given), signed by the trusted (or foreign) key. */
  sign(input: {
    teamPlayerId: string;
    bundleId: string;
    timestamp?: number;
    foreign?: boolean;
    chained?: boolean;
  }): Record<string, string | number>;
  fetches: string[];
  close(): Promise<void>;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });

/**
 * A CA and a leaf it issues (RSA 2048, SHA-256), made by openssl in a temporary directory; with
 * `intermediateAia`, the root issues an intermediate CA that issues the leaf, and the leaf's AIA names
 * that URL as its issuer (as DigiCert's leaves do), the anchor being the root alone.
 */
function makeChain(
  name: string,
  intermediateAia?: string,
): { anchorPem: string; leafDer: Buffer; leafKeyPem: string; intermediateDer?: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), `gc-${name}-`));
  try {
    const caExt = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n';
    writeFileSync(path.join(dir, 'ca.ext'), caExt);
    writeFileSync(
      path.join(dir, 'leaf.ext'),
      'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=codeSigning\n' +
        (intermediateAia ? `authorityInfoAccess=caIssuers;URI:${intermediateAia}\n` : ''),
    );
    // prettier-ignore
    {
      openssl(['genrsa', '-out', 'ca.key', '2048'], dir);
      openssl(['req', '-x509', '-new', '-key', 'ca.key', '-sha256', '-days', '30', '-subj', `/CN=Test ${name} Root`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', 'ca.pem'], dir);
      let issuer = ['-CA', 'ca.pem', '-CAkey', 'ca.key'];
      if (intermediateAia) {
        openssl(['genrsa', '-out', 'int.key', '2048'], dir);
        openssl(['req', '-new', '-key', 'int.key', '-subj', `/CN=Test ${name} Intermediate`, '-out', 'int.csr'], dir);
        openssl(['x509', '-req', '-in', 'int.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-sha256', '-days', '20', '-extfile', 'ca.ext', '-out', 'int.pem'], dir);
        openssl(['x509', '-in', 'int.pem', '-outform', 'DER', '-out', 'int.der'], dir);
        issuer = ['-CA', 'int.pem', '-CAkey', 'int.key'];
      }
      openssl(['genrsa', '-out', 'leaf.key', '2048'], dir);
      openssl(['req', '-new', '-key', 'leaf.key', '-subj', `/CN=gc-${name}`, '-out', 'leaf.csr'], dir);
      openssl(['x509', '-req', '-in', 'leaf.csr', ...issuer, '-CAcreateserial', '-sha256', '-days', '10', '-extfile', 'leaf.ext', '-outform', 'DER', '-out', 'leaf.der'], dir);
    }
    return {
      anchorPem: readFileSync(path.join(dir, 'ca.pem'), 'utf8'),
      leafDer: readFileSync(path.join(dir, 'leaf.der')),
      leafKeyPem: readFileSync(path.join(dir, 'leaf.key'), 'utf8'),
      ...(intermediateAia ? { intermediateDer: readFileSync(path.join(dir, 'int.der')) } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The signed bytes: team_player_id ‖ bundle_id ‖ timestamp (uint64 big-endian) ‖ salt. */
export function gameCenterPayload(
  teamPlayerId: string,
  bundleId: string,
  timestamp: number,
  salt: Buffer,
): Buffer {
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(BigInt(timestamp));
  return Buffer.concat([Buffer.from(teamPlayerId, 'utf8'), Buffer.from(bundleId, 'utf8'), stamp, salt]);
}

export async function startGameCenterKeys(): Promise<GameCenterKeys> {
  const fetches: string[] = [];
  const files = new Map<string, Buffer>();
  const server = await serve((_request, _body, url) => {
    fetches.push(url.pathname);
    const file = files.get(url.pathname);
    return file ? { status: 200, body: file, type: 'application/pkix-cert' } : { status: 404, body: {} };
  });
  const trusted = makeChain('trusted');
  const foreign = makeChain('foreign');
  // A leaf issued by an intermediate the anchor lacks, found through its AIA (as Apple's are).
  const chained = makeChain('chained', `${server.base}/ca/intermediate.der`);
  // The trusted anchor is the chained root too: one anchor file holds both roots.
  const anchorPem = `${trusted.anchorPem}\n${chained.anchorPem}`;
  if (!new X509Certificate(trusted.leafDer).checkIssued(new X509Certificate(trusted.anchorPem)))
    throw new Error('the test chain is broken');
  files.set('/public-key/gc-test.cer', trusted.leafDer);
  files.set('/public-key/gc-foreign.cer', foreign.leafDer);
  files.set('/public-key/gc-chained.cer', chained.leafDer);
  files.set('/ca/intermediate.der', chained.intermediateDer!);
  const trustedUrl = `${server.base}/public-key/gc-test.cer`;
  const foreignUrl = `${server.base}/public-key/gc-foreign.cer`;
  const chainedUrl = `${server.base}/public-key/gc-chained.cer`;
  return {
    base: server.base,
    anchorPem,
    firstRootPem: trusted.anchorPem,
    trustedUrl,
    foreignUrl,
    chainedUrl,
    fetches,
    sign({
      teamPlayerId,
      bundleId,
      timestamp = Date.now(),
      foreign: useForeign = false,
      chained: useChained = false,
    }) {
      const salt = randomBytes(4);
      const signer = createSign('sha256');
      signer.update(gameCenterPayload(teamPlayerId, bundleId, timestamp, salt));
      const chain = useForeign ? foreign : useChained ? chained : trusted;
      return {
        public_key_url: useForeign ? foreignUrl : useChained ? chainedUrl : trustedUrl,
        signature: signer.sign(createPrivateKey(chain.leafKeyPem)).toString('base64'),
        salt: salt.toString('base64'),
        timestamp,
        team_player_id: teamPlayerId,
        bundle_id: bundleId,
      };
    },
    close: server.close,
  };
}

// ---------------------------------------------------------------------------------- Google Play Games

export interface PlayGamesApi {
  /** `token_endpoint` and `api_base_url` of a `google_play_games` entry. */
  tokenEndpoint: string;
  apiBase: string;
  clientId: string;
  clientSecret: string;
  /** A server auth code for a player, single-use, as PlayGames.requestServerSideAccess returns. */
  issueCode(playerId: string, displayName?: string): string;
  tokenRequests: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * Google's token endpoint (`authorization_code` with the web client's id and secret: an unknown or used
 * code is 400 `invalid_grant`, a wrong client 401 `invalid_client`) and the Play Games API's
 * `GET /games/v1/players/me` (the bearer's player, else 401).
 */
export async function startPlayGamesApi(): Promise<PlayGamesApi> {
  const clientId = '123456-web.apps.googleusercontent.com';
  const clientSecret = 'GOCSPX-test-secret';
  const codes = new Map<string, { playerId: string; displayName: string }>();
  const tokens = new Map<string, { playerId: string; displayName: string }>();
  const tokenRequests: URLSearchParams[] = [];
  const server = await serve((request, body, url) => {
    if (url.pathname === '/token' && request.method === 'POST') {
      const form = new URLSearchParams(body);
      tokenRequests.push(form);
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
        return { status: 401, body: { error: 'invalid_client' } };
      const player = codes.get(form.get('code') ?? '');
      if (form.get('grant_type') !== 'authorization_code' || !player)
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } };
      codes.delete(form.get('code') ?? '');
      const accessToken = `ya29.${randomBytes(24).toString('base64url')}`;
      tokens.set(accessToken, player);
      return {
        status: 200,
        body: {
          access_token: accessToken,
          expires_in: 3599,
          token_type: 'Bearer',
          scope: 'https://www.googleapis.com/auth/games_lite',
        },
      };
    }
    if (url.pathname === '/games/v1/players/me' && request.method === 'GET') {
      const player = tokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!player) return { status: 401, body: { error: { code: 401, message: 'Invalid Credentials' } } };
      return {
        status: 200,
        body: { kind: 'games#player', playerId: player.playerId, displayName: player.displayName },
      };
    }
    return { status: 404, body: {} };
  });
  return {
    tokenEndpoint: `${server.base}/token`,
    apiBase: server.base,
    clientId,
    clientSecret,
    tokenRequests,
    issueCode(playerId, displayName = 'Player One') {
      const code = `4/0A${randomBytes(24).toString('base64url')}`;
      codes.set(code, { playerId, displayName });
      return code;
    },
    close: server.close,
  };
}

// ------------------------------------------------------------------------------------------ all four

/** The four fakes and the IDENTITY_PROVIDERS entries that point at them (ids as given). */
export interface PlatformFakes {
  steam: SteamWebApi;
  eos: EosIssuer;
  gameCenter: GameCenterKeys;
  playGames: PlayGamesApi;
  bundleId: string;
  entries(ids?: {
    steam?: string;
    epic?: string;
    gameCenter?: string;
    playGames?: string;
  }): Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startPlatformFakes(): Promise<PlatformFakes> {
  const [steam, eos, gameCenter, playGames] = await Promise.all([
    startSteamWebApi(),
    startEosIssuer(),
    startGameCenterKeys(),
    startPlayGamesApi(),
  ]);
  const bundleId = 'com.example.game';
  return {
    steam,
    eos,
    gameCenter,
    playGames,
    bundleId,
    entries: (ids = {}) => [
      {
        id: ids.steam ?? 'steam-game',
        kind: 'steam_ticket',
        app_id: steam.appId,
        web_api_key: steam.key,
        identity: steam.identity,
        api_base_url: steam.base,
      },
      {
        id: ids.epic ?? 'epic',
        kind: 'epic',
        client_id: eos.clientId,
        issuer: eos.issuer,
        jwks_uri: eos.jwksUri,
      },
      {
        id: ids.gameCenter ?? 'game-center',
        kind: 'game_center',
        bundle_id: bundleId,
        trust_anchor: gameCenter.anchorPem,
        public_key_host: '127.0.0.1',
      },
      {
        id: ids.playGames ?? 'play-games',
        kind: 'google_play_games',
        client_id: playGames.clientId,
        client_secret: playGames.clientSecret,
        token_endpoint: playGames.tokenEndpoint,
        api_base_url: playGames.apiBase,
      },
    ],
    close: async () => {
      await Promise.all([steam.close(), eos.close(), gameCenter.close(), playGames.close()]);
    },
  };
}

/**
 * A credential desk over the fakes: `GET {url}/steam_ticket?steamid=…[&vac][&banned]`, `/epic?sub=…`,
 * `/game_center?team_player_id=…`, `/google_play_games?player_id=…` answer
 * `{provider, credential}` with a fresh single-use credential, the provider being the entry ids
 * `entries({steam: 'steam_ticket', epic: 'epic', gameCenter: 'game_center', playGames:
 * 'google_play_games'})` gives. The local recipe (scripts/platformFakes.ts) and the SDK suites in other
 * languages (which cannot mint a Game Center signature or a Steam ticket themselves) ask it.
 */
export async function startCredentialDesk(
  fakes: PlatformFakes,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const q = (name: string, fallback: string) => url.searchParams.get(name) ?? fallback;
    const answer = async (): Promise<unknown> => {
      switch (url.pathname) {
        case '/steam_ticket':
          return {
            provider: 'steam_ticket',
            credential: {
              ticket: fakes.steam.issue({
                steamid: q('steamid', '76561198000000042'),
                vacbanned: url.searchParams.has('vac'),
                publisherbanned: url.searchParams.has('banned'),
              }),
            },
          };
        case '/epic':
          return { provider: 'epic', credential: { id_token: await fakes.eos.mint(q('sub', '0002aaaa')) } };
        case '/game_center':
          return {
            provider: 'game_center',
            credential: fakes.gameCenter.sign({
              teamPlayerId: q('team_player_id', 'T:_local'),
              bundleId: fakes.bundleId,
            }),
          };
        case '/google_play_games':
          return {
            provider: 'google_play_games',
            credential: { server_auth_code: fakes.playGames.issueCode(q('player_id', 'g-local')) },
          };
        default:
          return undefined;
      }
    };
    answer().then(
      (body) => {
        response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(body ?? { error: 'steam_ticket, epic, game_center or google_play_games' }),
        );
      },
      (err: unknown) => {
        response.writeHead(500).end(String(err));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
