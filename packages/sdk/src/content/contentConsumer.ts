import { send } from '../api/apiContext.js';
import type { ApiContext } from '../api/apiContext.js';
import { checkTimeout, DEFAULT_AUTH_SERVER_URL, DEFAULT_REQUEST_TIMEOUT_MS } from '../clientOptions.js';
import { ConsumptionError, MalformedResponseError } from '../errors.js';
import type { HttpClient } from '../httpClient.js';
import { checkPayloadCipher, consumptionPlaintext, encryptConsumptionPayload } from './consumptionPayload.js';
import type { ConsumptionRecord, PayloadCipher } from './consumptionPayload.js';

export interface ContentConsumerOptions {
  /** The provider's app (the client the `cuid` is registered to). */
  clientId: string;
  /**
   * The app's client secret. When set, every call carries HTTP Basic client authentication
   * (`client_id:client_secret`), which a provider with `consume_auth: client_secret` requires.
   * Server-side only, like the encryption keys.
   */
  clientSecret?: string;
  /** The payload form and its key material (see `PayloadCipher`). */
  cipher: PayloadCipher;
  /** The service's base URL; default `http://127.0.0.1:8080`. */
  authServerUrl?: string;
  /** Fetch-like HTTP client; default `globalThis.fetch`. */
  httpClient?: HttpClient;
  /** Bound for each request, in milliseconds; default 15 000 (the service answers after inclusion). */
  requestTimeout?: number;
}

/** The service's answer: `included` (on chain, with the new figures) or `queued` (stored, 202). */
export interface ConsumptionResult {
  status: 'included' | 'queued';
  cuid: string;
  /** The slot's content wallet address. */
  slot: string;
  userDbkey: string;
  amount: string;
  requestId: string | undefined;
  /** Set when included. */
  txHash: string | undefined;
  /** The slot's content-token balance after the record, when included. */
  balance: string | undefined;
  /** The slot's cumulative consumption after the record, when included. */
  usedBalances: string | undefined;
}

const CONSUME_PATH = '/v1/development-api/increase_used_content_token';

/** RFC 6749 §2.3.1: each part form-encoded, then `id:secret` in base64. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (part: string) => encodeURIComponent(part).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`, 'utf8').toString('base64')}`;
}

/**
 * Records content consumption from a provider backend (spec endpoint group 14, rule 3: never from a
 * browser or app): builds the payload, encrypts it and POSTs it to `increase_used_content_token`.
 */
export class ContentConsumer {
  readonly clientId: string;
  readonly #cipher: PayloadCipher;
  readonly #authorization: string | undefined;
  readonly #api: ApiContext;

  constructor(options: ContentConsumerOptions) {
    if (typeof options.clientId !== 'string' || options.clientId === '') {
      throw new TypeError('dauth: clientId is required');
    }
    if (
      options.clientSecret !== undefined &&
      (typeof options.clientSecret !== 'string' || options.clientSecret === '')
    ) {
      throw new TypeError('dauth: clientSecret, when given, must be a non-empty string');
    }
    checkPayloadCipher(options.cipher);
    const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
    checkTimeout('requestTimeout', requestTimeout);
    this.clientId = options.clientId;
    this.#cipher = { ...options.cipher };
    this.#authorization =
      options.clientSecret === undefined
        ? undefined
        : basicAuthorization(options.clientId, options.clientSecret);
    this.#api = {
      baseUrl: (options.authServerUrl ?? DEFAULT_AUTH_SERVER_URL).replace(/\/+$/, ''),
      httpClient: options.httpClient ?? ((url, init) => fetch(url, init)),
      requestTimeout,
    };
  }

  /** The `encrypted_message` for `record`, as `record` would send it (for logs of your own, never the key). */
  encrypt(record: ConsumptionRecord): string {
    const iat = this.#cipher.form === 'gcm' ? Math.floor(Date.now() / 1000) : undefined;
    return encryptConsumptionPayload(
      consumptionPlaintext(this.clientId, record, iat),
      this.#cipher,
      this.clientId,
    );
  }

  /**
   * Deducts `amount` from the slot's content tokens and adds it to `used_balances`. Resolves once the
   * service recorded it (or queued it, 202); throws `ConsumptionError` when refused (nothing changed)
   * and `RequestFailedError` when no answer came — retry with the same `requestId` then.
   */
  async record(record: ConsumptionRecord): Promise<ConsumptionResult> {
    const body = JSON.stringify({ encrypted_message: this.encrypt(record), client_id: this.clientId });
    const response = await send(this.#api, CONSUME_PATH, {
      method: 'POST',
      json: body,
      ...(this.#authorization === undefined ? {} : { authorization: this.#authorization }),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch (error) {
      throw new MalformedResponseError('body is not JSON', response.status, { cause: error });
    }
    const answer = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
    const text = (key: string): string | undefined =>
      typeof answer[key] === 'string' ? answer[key] : undefined;
    if ((response.status !== 200 && response.status !== 202) || answer.success !== true) {
      throw new ConsumptionError(response.status, text('error'), text('message') ?? 'no error message');
    }
    const result: ConsumptionResult = {
      status: response.status === 202 ? 'queued' : 'included',
      cuid: text('cuid') ?? '',
      slot: text('slot') ?? '',
      userDbkey: text('user_dbkey') ?? '',
      amount: text('amount') ?? '',
      requestId: text('request_id'),
      txHash: text('tx_hash'),
      balance: text('balance'),
      usedBalances: text('used_balances'),
    };
    if (result.status === 'included' && (result.txHash === undefined || result.usedBalances === undefined)) {
      throw new MalformedResponseError(
        'an included record without tx_hash or used_balances',
        response.status,
      );
    }
    return result;
  }
}
