import { createServer } from 'node:http';
import { createCallbackHandler, DauthClient } from '@dauth/sdk';

const { DAUTH_URL, DAUTH_CLIENT_ID, DAUTH_CLIENT_SECRET, DAUTH_REDIRECT_URI, USER_JWT } = process.env;
const dauth = new DauthClient({
  clientId: DAUTH_CLIENT_ID,
  clientSecret: DAUTH_CLIENT_SECRET,
  redirectUri: DAUTH_REDIRECT_URI,
  authServerUrl: DAUTH_URL, // e.g. http://127.0.0.1:8080
});
const app = createServer(createCallbackHandler(dauth)).listen(new URL(DAUTH_REDIRECT_URI).port); // callbacks
const slot = await dauth.getSlotInfo({ jwt: USER_JWT }); // the login JWT your game client sent
console.log(`slot ${slot.id.value} at ${slot.content_address}`); // keep slot.access_token server-side
await dauth.shutdown();
app.close();
