import type { AuthorizeCallback } from '../authorizeCallback.js';

/**
 * Carries callbacks between the processes of one backend. The spec keeps pending requests in the
 * memory of the process that made them, so a callback routed to another replica is lost; with a
 * relay, that replica forwards it and the waiting process completes the call.
 *
 * Delivery is at most once: a callback the relay loses behaves like an unknown state, and the
 * waiting call times out.
 */
export interface CallbackRelay {
  /** Starts listening for callbacks for `state`. Must resolve only once a forward would reach it. */
  listen(state: string, deliver: (callback: AuthorizeCallback) => void): Promise<void>;
  /** Stops listening for `state`. */
  unlisten(state: string): Promise<void>;
  /** Offers a callback this process has no request for; resolves true if another process took it. */
  forward(callback: AuthorizeCallback): Promise<boolean>;
}
