import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StartupProgress } from '../composition/startupProgress.js';
import { safeEqual } from '../crypto/constantTime.js';
import { serviceStarting } from '../errors.js';

/** How long a client should wait before asking again while the service starts. */
export const STARTING_RETRY_AFTER_SECONDS = 2;

/**
 * Answers on the port while the services start (a journal recovery can take a while), before the Fastify
 * app takes over the same server: `/healthz` 200 (the process is alive), `/readyz` 503 `not_ready` with
 * each start step's progress in `checks` (the shape of the app's own `/readyz`), anything else 503
 * `service_starting` with `Retry-After`. No route of the app is reachable before its services exist.
 * As on the app's `/readyz`, the steps are shown only to a caller with the admin key (known once the
 * secrets are loaded); anyone else learns only that the service is starting.
 */
export function startupHandler(progress: StartupProgress) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const pathname = (request.url ?? '/').split('?')[0];
    const readable = request.method === 'GET' || request.method === 'HEAD';
    if (readable && pathname === '/healthz') {
      send(response, request, 200, { status: 'ok' });
    } else if (readable && pathname === '/readyz') {
      if (!isAdmin(request, progress.adminApiKey)) {
        send(response, request, 503, { success: false, error: 'not_ready', message: 'Starting' });
        return;
      }
      const checks = progress.checks();
      const step = progress.current;
      send(response, request, 503, {
        success: false,
        error: 'not_ready',
        message: `Starting${step ? `: ${step} (${checks[step]})` : ''}`,
        checks,
      });
    } else {
      const starting = serviceStarting(STARTING_RETRY_AFTER_SECONDS);
      response.setHeader('Retry-After', String(STARTING_RETRY_AFTER_SECONDS));
      send(response, request, starting.status, {
        success: false,
        error: starting.code,
        message: starting.message,
      });
    }
  };
}

function isAdmin(request: IncomingMessage, adminApiKey: string | undefined): boolean {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  return adminApiKey !== undefined && token !== undefined && safeEqual(token, adminApiKey);
}

function send(response: ServerResponse, request: IncomingMessage, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('content-length', Buffer.byteLength(text));
  response.setHeader('cache-control', 'no-store');
  response.setHeader('x-content-type-options', 'nosniff');
  response.end(request.method === 'HEAD' ? undefined : text);
}
