import { parseEther } from 'viem';
import {
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  payloadOf,
  post,
  type Player,
  type Provider,
} from '../content/contentSupport.js';
import { authorizeWithBearer, exchange } from '../oauth/support.js';
import type { TestServer } from './server.js';

/** What `appActivityFlows` did, for the assertions on the app's activity report and charts. */
export interface AppActivityFlows {
  provider: Provider;
  players: [Player, Player];
  /** Content-token units bought and consumed, and the price of the one market sale (wei). */
  bought: bigint;
  consumed: bigint;
  salePrice: bigint;
}

/**
 * Real flows of one app on a real dauth and its embedded chain, so the app's activity report has
 * something of every kind to show: two players sign in (code flow, token exchange), one buys content
 * (a sponsored operation) and consumes some, the other sells their slot to the first on the market.
 */
export async function appActivityFlows(server: TestServer): Promise<AppActivityFlows> {
  const provider = await newProvider(server);
  const players: [Player, Player] = [await newPlayer(server, provider), await newPlayer(server, provider)];
  const client = {
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    redirectUri: 'https://game.example/cb',
  };
  for (const player of players) {
    const user = {
      email: '',
      password: '',
      nickname: '',
      uuid: String(player.user.uuid),
      loginToken: player.user.token,
    };
    const { code } = await authorizeWithBearer(server.url, user, client);
    const exchanged = await exchange(server.url, client, code);
    if (exchanged.status !== 200) throw new Error(`exchange failed: ${await exchanged.text()}`);
  }

  const [buyer, seller] = players;
  const bought = 1_000n;
  const purchase = await buy(server, provider, buyer, bought.toString());
  if (purchase.status !== 200) throw new Error(`purchase failed: ${JSON.stringify(purchase.body)}`);
  const consumed = 300n;
  const consumption = await consume(server, {
    encrypted_message: encryptPayload(provider, payloadOf(provider, buyer, consumed)),
  });
  if (consumption.status !== 200) throw new Error(`consumption failed: ${JSON.stringify(consumption.body)}`);

  const salePrice = parseEther('0.5');
  const listed = await post<{ listing: { id: string } }>(
    server,
    '/v1/market/listings',
    {
      user_id: String(seller.user.uuid),
      client_id: provider.clientId,
      price: salePrice.toString(),
      ...seller.pin,
    },
    seller.user.token,
  );
  if (listed.status !== 201 && listed.status !== 200)
    throw new Error(`listing failed: ${JSON.stringify(listed.body)}`);
  const sold = await post(
    server,
    `/v1/market/listings/${listed.body.listing.id}/purchase`,
    buyer.pin,
    buyer.user.token,
  );
  if (sold.status !== 200) throw new Error(`sale failed: ${JSON.stringify(sold.body)}`);
  return { provider, players, bought, consumed, salePrice };
}
