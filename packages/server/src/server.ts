import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Config } from './config.js';
import { type Composition, createServices, type CreateServicesOptions } from './composition/index.js';
import { StartupProgress } from './composition/startupProgress.js';
import { buildApp } from './http/app.js';
import { startupHandler } from './http/startupHandler.js';
import { strictTransportSecurity } from './http/transportSecurity.js';
import type { App } from './http/types.js';
import { loggerOptions, prettyLogs } from './logger.js';
import { collectStartupGarbage } from './startupGarbage.js';
import { holdTickObjectShape } from './tickObjectShape.js';
import { widenPolymorphicCaches } from './polymorphicCaches.js';

export interface RunningServer {
  app: App;
  services: Composition;
  /** The base URL the server actually listens on (port 0 resolved). */
  url: string;
  close(): Promise<void>;
}

export interface StartServerOptions extends CreateServicesOptions {
  /** Called once the port answers, before the services exist (`/readyz` 503 with the start's progress). */
  onListening?: (url: string) => void;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/**
 * Listens first, then wires the services, then hands the same socket to the app (docs/chain.md,
 * "Durability"): while a long chain journal recovery runs, `/healthz` answers 200 and `/readyz` 503 with
 * its progress, every other route 503 `service_starting`; once the services are ready the Fastify app
 * serves on the same `http.Server`, so no connection is ever refused in between. Used by `main.ts` and by
 * end-to-end tests.
 */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  const { onListening, ...serviceOptions } = options;
  // First, before the services' connections and the first requests meet Node's shared socket and stream code.
  widenPolymorphicCaches();
  // Before start-up fills V8's root object map: nextTick's records keep one hidden class for good.
  holdTickObjectShape();
  const logger =
    serviceOptions.logger ??
    pino(loggerOptions(config.logLevel, prettyLogs(config.logFormat, process.stdout.isTTY)));
  const progress = new StartupProgress();
  let handler: Handler = startupHandler(progress);
  const hsts = strictTransportSecurity(config.publicUrl);
  const server = http.createServer(
    hsts === undefined
      ? (request, response) => handler(request, response)
      : (request, response) => {
          response.setHeader('strict-transport-security', hsts);
          handler(request, response);
        },
  );
  // Fastify's own defaults for a server it creates (a server from `serverFactory` is left as it is).
  server.keepAliveTimeout = 72_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: config.host, port: config.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = urlOf(config.host, (server.address() as AddressInfo).port);
  logger.info({ url }, 'listening while the services start');
  onListening?.(url);

  let services: Composition;
  try {
    services = await createServices(config, { ...serviceOptions, logger, startup: progress });
  } catch (err) {
    await closeServer(server);
    throw err;
  }
  let app: App;
  try {
    let appHandler: Handler | undefined;
    app = await buildApp(services, {
      serverFactory: (fastifyHandler) => {
        appHandler = fastifyHandler;
        return server;
      },
    });
    await app.ready();
    if (!appHandler) throw new Error('Fastify did not hand over its request handler');
    logger.debug({ ms: Math.round(collectStartupGarbage()) }, 'start-up garbage collected');
    // From here on every request, on new and kept-alive connections alike, is the app's.
    handler = appHandler;
  } catch (err) {
    await closeServer(server);
    await services.close();
    throw err;
  }
  return {
    app,
    services,
    url,
    close: async () => {
      // Fastify does not close a server it did not listen on: stop accepting, then close the services.
      await Promise.all([app.close(), closeServer(server)]);
      await services.close();
    },
  };
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Stops accepting connections, waits for the open requests to end, and closes each kept-alive connection
 * as soon as it idles. `server.close()` closes only the connections idle at the moment it is called: one
 * whose request ends later (a consumption answered 202 by the app's `preClose`) would otherwise hold the
 * close open for the whole keep-alive timeout (72 s).
 */
function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
