export { DauthClient } from './client.js';
export { DauthManagementClient, ManagementError } from './management.js';
export type {
  DirectoryPlayer,
  ManagementClientOptions,
  PlayerDetail,
  PlayerPage,
  PregeneratedPlayer,
} from './management.js';
export type { GetSlotInfoParameters, StatusReport } from './client.js';
export {
  DEFAULT_AUTH_SERVER_URL,
  DEFAULT_CALLBACK_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from './clientOptions.js';
export type { DauthClientOptions } from './clientOptions.js';
export type { HttpClient, HttpRequestInit, HttpResponse, Logger } from './httpClient.js';
export { SlotId } from './slotId.js';
export type { SlotIdKind } from './slotId.js';
export type { SlotInfo } from './slotInfo.js';
export type { LoginStatus, LoginStatusParameters } from './api/loginStatus.js';
export { readSlotEnvelope } from './api/getToken.js';
export { DEVICE_CODE_GRANT_TYPE } from './api/deviceAuthorization.js';
export type { DeviceAuthorization, DeviceTokens, PollDeviceTokenOptions } from './api/deviceAuthorization.js';
export { parseAuthorizeCallback } from './authorizeCallback.js';
export type { AuthorizeCallback, CallbackOutcome } from './authorizeCallback.js';
export {
  AccountLinkRequiredError,
  AuthorizeError,
  CallbackRejectedError,
  ConsumptionError,
  CallbackTimeoutError,
  DauthError,
  DeviceFlowError,
  EnvelopeError,
  ExpiredTokenError,
  FederationError,
  FirstPartyRequiredError,
  GuestRequestError,
  IdTokenReplayedError,
  PlatformBannedError,
  PlatformRejectedError,
  InvalidMfaCodeError,
  InvalidMfaTokenError,
  InvalidIdTokenError,
  LastSignInMethodError,
  LoginMfaError,
  MalformedResponseError,
  MfaRequiredError,
  MissingJwtError,
  OutsideSessionPolicyError,
  ProviderRegistrationError,
  RefusedRequestError,
  RequestFailedError,
  SessionOperationError,
  ShutdownError,
  StatusRequestError,
  toHttpStatus,
  WalletRequiredError,
} from './errors.js';
export type { AuthorizeErrorDetails } from './errors.js';
export type { GuestSession, GuestUpgrade, NewGuest } from './api/guests.js';
export { solveBotChallenge, type BotChallenge } from './api/botChallenge.js';
export type { FederatedLogin, LinkedIdentity, PlatformCredential } from './api/federation.js';
export type { LoginSession } from './api/mfa.js';
export type { SessionCall, SessionOperationResult } from './api/sessionOperations.js';
export { parseJson, stringifyJson } from './losslessJson.js';
export type { JsonObject, JsonValue, RawJsonWriter } from './losslessJson.js';
export {
  CallbackBodyTooLargeError,
  callbackFieldsFrom,
  createCallbackHandler,
  readCallbackFields,
} from './nodeCallbackHandler.js';
export type { CallbackReceiver } from './nodeCallbackHandler.js';
export type { CallbackRelay } from './relay/callbackRelay.js';
export { RedisCallbackRelay } from './relay/redisCallbackRelay.js';
export type {
  RedisCallbackRelayOptions,
  RedisPublisher,
  RedisSubscriber,
} from './relay/redisCallbackRelay.js';
export { ContentConsumer } from './content/contentConsumer.js';
export type { ConsumptionResult, ContentConsumerOptions } from './content/contentConsumer.js';
export { consumptionPlaintext, encryptConsumptionPayload, gcmAad } from './content/consumptionPayload.js';
export type { ConsumptionRecord, PayloadCipher } from './content/consumptionPayload.js';
export { registerContentProvider } from './content/providerRegistration.js';
export type {
  ConsumeAuth,
  PayloadMode,
  ProviderOwnerCredentials,
  ProviderRegistration,
  RegisterContentProviderOptions,
} from './content/providerRegistration.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks/webhookVerifier.js';
export type {
  VerifyOptions as WebhookVerifyOptions,
  WebhookEvent,
  WebhookEventData,
  WebhookEventType,
  WebhookHeaders,
} from './webhooks/webhookVerifier.js';
