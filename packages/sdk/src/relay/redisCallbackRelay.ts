import { parseAuthorizeCallback } from '../authorizeCallback.js';
import type { AuthorizeCallback } from '../authorizeCallback.js';
import type { CallbackRelay } from './callbackRelay.js';

/** The part of an ioredis client (or a compatible one) used to publish. */
export interface RedisPublisher {
  publish(channel: string, message: string): Promise<number>;
}

/**
 * The part of an ioredis client used to subscribe. It must be a connection of its own: a Redis
 * connection in subscriber mode accepts no other commands.
 */
export interface RedisSubscriber {
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  off(event: 'message', listener: (channel: string, message: string) => void): unknown;
}

export interface RedisCallbackRelayOptions {
  publisher: RedisPublisher;
  subscriber: RedisSubscriber;
  /** Prefix of the per-state channels; give each backend (client id) its own. */
  channelPrefix?: string;
}

/**
 * A `CallbackRelay` over Redis pub/sub: a waiting process subscribes to one channel per state, and a
 * process that receives a callback it has no request for publishes it there. PUBLISH returns how
 * many subscribers got the message, so a state nobody waits for is known at once and ignored.
 *
 * Only the callback (`state`, `success`, `code`) crosses Redis; the code is useless without the
 * client secret, and the exchange, with its tokens, happens in the waiting process.
 */
export class RedisCallbackRelay implements CallbackRelay {
  readonly #publisher: RedisPublisher;
  readonly #subscriber: RedisSubscriber;
  readonly #prefix: string;
  readonly #listeners = new Map<string, (callback: AuthorizeCallback) => void>();
  readonly #onMessage = (channel: string, message: string): void => this.#receive(channel, message);

  constructor(options: RedisCallbackRelayOptions) {
    this.#publisher = options.publisher;
    this.#subscriber = options.subscriber;
    this.#prefix = options.channelPrefix ?? 'dauth:callback:';
    this.#subscriber.on('message', this.#onMessage);
  }

  async listen(state: string, deliver: (callback: AuthorizeCallback) => void): Promise<void> {
    this.#listeners.set(state, deliver);
    try {
      // Resolves once Redis confirmed the subscription, so a forward published after it arrives.
      await this.#subscriber.subscribe(this.#prefix + state);
    } catch (error) {
      this.#listeners.delete(state);
      throw error;
    }
  }

  async unlisten(state: string): Promise<void> {
    if (!this.#listeners.delete(state)) return;
    await this.#subscriber.unsubscribe(this.#prefix + state);
  }

  async forward(callback: AuthorizeCallback): Promise<boolean> {
    const message = JSON.stringify({
      state: callback.state,
      success: callback.success ? 1 : 0,
      code: callback.code,
    });
    return (await this.#publisher.publish(this.#prefix + callback.state, message)) > 0;
  }

  /** Stops listening on every state and detaches from the subscriber; the clients stay open. */
  async close(): Promise<void> {
    this.#subscriber.off('message', this.#onMessage);
    const states = [...this.#listeners.keys()];
    this.#listeners.clear();
    await Promise.all(states.map((state) => this.#subscriber.unsubscribe(this.#prefix + state)));
  }

  #receive(channel: string, message: string): void {
    if (!channel.startsWith(this.#prefix)) return;
    const state = channel.slice(this.#prefix.length);
    const deliver = this.#listeners.get(state);
    if (!deliver) return;
    let callback: AuthorizeCallback | undefined;
    try {
      callback = parseAuthorizeCallback(JSON.parse(message));
    } catch {
      return;
    }
    // A message whose state differs from its channel's is not ours; treat it as noise.
    if (callback?.state === state) deliver(callback);
  }
}
