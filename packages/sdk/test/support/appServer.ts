import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP server for the app side (the callback route), closed by `close`. */
export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function listen(server: Server): Promise<RunningServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function serve(listener: RequestListener): Promise<RunningServer> {
  return listen(createServer(listener));
}

/** A free loopback port, for a redirect_uri that must be known before its server starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
