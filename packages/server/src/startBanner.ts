import { isIP } from 'node:net';

/** What the operator of a fresh start needs to find: where the console, the API docs and the admin key are. */
export interface StartLocations {
  url: string;
  console: string;
  docs: string;
  /** The file the admin key is kept in, or where it came from. */
  adminKey: string;
  /** Why passkeys cannot work at this address, when they cannot (see `passkeyObstacle`). */
  passkeys?: string;
}

/**
 * Browsers refuse an IP address as a WebAuthn relying party id (it must be a domain: `localhost` counts,
 * `127.0.0.1` does not), and the relying party is PUBLIC_URL's host (docs/players.md). So a PUBLIC_URL
 * on an IP literal leaves passkeys unusable; the start says so and what to set instead.
 */
export function passkeyObstacle(publicUrl: string): string | undefined {
  const url = new URL(publicUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!isIP(host)) return undefined;
  const suggestion = `${url.protocol}//localhost${url.port ? `:${url.port}` : ''}`;
  return (
    `passkeys unavailable: browsers refuse an IP address (${host}) as relying party; ` +
    `set PUBLIC_URL to a host name (${suggestion} on this machine)`
  );
}

/**
 * The locations, from the address browsers use (`PUBLIC_URL`, or the listening address when the port
 * was chosen by the system) and where the admin key lives (`ADMIN_API_KEY` set, or the data directory's file).
 */
export function startLocations(input: {
  publicUrl: string;
  listeningUrl: string;
  dataDir: string;
  adminKeyFromEnvironment: boolean;
}): StartLocations {
  const base = /:0$/.test(input.publicUrl) ? input.listeningUrl : input.publicUrl;
  const passkeys = passkeyObstacle(input.publicUrl);
  return {
    url: base,
    console: `${base}/console`,
    docs: `${base}/docs`,
    adminKey: input.adminKeyFromEnvironment
      ? 'the ADMIN_API_KEY environment variable'
      : `${input.dataDir}/admin-api-key`,
    ...(passkeys ? { passkeys } : {}),
  };
}

/** The few lines printed under the human-readable log of a terminal. */
export function startBanner(locations: StartLocations): string {
  return [
    '',
    `dauth is ready at ${locations.url}`,
    `  console    ${locations.console}`,
    `  API docs   ${locations.docs}`,
    `  admin key  ${locations.adminKey}`,
    ...(locations.passkeys ? [`  passkeys   ${locations.passkeys}`] : []),
    '',
    '',
  ].join('\n');
}
