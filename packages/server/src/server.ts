import type { Config } from './config.js';
import { createServices, type CreateServicesOptions, type Services } from './composition/index.js';
import { buildApp } from './http/app.js';
import type { App } from './http/types.js';

export interface RunningServer {
  app: App;
  services: Services;
  /** The base URL the server actually listens on (port 0 resolved). */
  url: string;
  close(): Promise<void>;
}

/** Wires the services, builds the app and listens. Used by `main.ts` and by end-to-end tests. */
export async function startServer(
  config: Config,
  options: CreateServicesOptions = {},
): Promise<RunningServer> {
  const services = await createServices(config, options);
  let app: App;
  try {
    app = await buildApp(services);
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await services.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  return {
    app,
    services,
    url,
    close: async () => {
      await app.close();
      await services.close();
    },
  };
}
