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
import { startCredentialDesk, startPlatformFakes } from '../test/helpers/platformFakes.js';

const port = Number(process.argv[2] ?? 7788);
const fakes = await startPlatformFakes();
const entries = fakes.entries({
  steam: 'steam_ticket',
  epic: 'epic',
  gameCenter: 'game_center',
  playGames: 'google_play_games',
});

const control = await startCredentialDesk(fakes, port);
process.stdout.write(
  `Platform fakes running. Start dauth with:\n\nIDENTITY_PROVIDERS='${JSON.stringify(entries)}'\n\n` +
    `Fresh credentials: ${control.url}/{steam_ticket,epic,game_center,google_play_games}\n`,
);
const stop = () => {
  void control.close();
  void fakes.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
