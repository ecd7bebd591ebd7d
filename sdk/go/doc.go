// Package dauth is the backend SDK for dauth's backend integration flow: it turns a user's login
// JWT into slot information via authorize, callback and get_token.
//
// A game backend creates one Client per process, mounts Client.CallbackHandler at the path of its
// registered redirect URI, and calls Client.GetSlotInfo for each login. The service answers the
// authorize call, then POSTs a callback carrying the request's state and an authorization code;
// the client exchanges the code and returns the slot to the waiting call. Pending calls live in
// the memory of the process that made them, so the callback must reach that process.
//
// HTTPStatus maps every error to the status the backend should answer with, row by row as in the
// spec's error table, including 499 for a cancelled and 504 for an expired request context.
//
// Beside it: the player calls a game backend relays (guests, native federated sign-in with an upstream
// id_token and the linked identities, the device grant), session operations that act from the
// player's wallet within the policy the player granted the app (SessionOperations, refused with an
// *OutsideSessionPolicyError), content-provider registration and consumption, and VerifyWebhook.
//
// Slot ids have up to 19 digits, beyond int64; SlotID keeps them exact together with the JSON kind
// (number or string) they arrived in. The package uses the standard library only.
package dauth
