/**
 * Platform sign-in without real credentials (docs/federation.md "Trying it locally"): starts the local
 * fakes the tests use (test/helpers/platformFakes.ts) — a Steam partner Web API, an EOS issuer, a Game
 * Center key server with a test certificate chain, Google's token endpoint and the Play Games API — and
 * a small control server that hands out fresh credentials, then prints the IDENTITY_PROVIDERS value
 * that points dauth at them.
 *
 *   node --import tsx packages/server/scripts/platformFakes.ts [control port, default 7788]
 *
 * Then start dauth with that IDENTITY_PROVIDERS, and for each kind:
 *   curl -s localhost:7788/steam_ticket?steamid=76561198000000042   → {"provider", "credential"}
 *   curl -s localhost:7788/epic?sub=0002aaaa
 *   curl -s localhost:7788/game_center?team_player_id=T:_abc
 *   curl -s localhost:7788/google_play_games?player_id=g123
 * and POST `{provider, client_id, credential}` (the answer plus your app's client_id) to
 * /v1/dev-user/platform-login. Every credential is single-use, as the real ones are.
 */
import http from 'node:http';
import { startPlatformFakes } from '../test/helpers/platformFakes.js';

const port = Number(process.argv[2] ?? 7788);
const fakes = await startPlatformFakes();
const entries = fakes.entries({
  steam: 'steam_ticket',
  epic: 'epic',
  gameCenter: 'game_center',
  playGames: 'google_play_games',
});

const control = http.createServer((request, response) => {
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
      response.end(JSON.stringify(body ?? { error: 'steam_ticket, epic, game_center or google_play_games' }));
    },
    (err: unknown) => {
      response.writeHead(500).end(String(err));
    },
  );
});
control.listen(port, '127.0.0.1', () => {
  process.stdout.write(
    `Platform fakes running. Start dauth with:\n\nIDENTITY_PROVIDERS='${JSON.stringify(entries)}'\n\n` +
      `Fresh credentials: http://127.0.0.1:${port}/{steam_ticket,epic,game_center,google_play_games}\n`,
  );
});
const stop = () => {
  control.close();
  void fakes.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
