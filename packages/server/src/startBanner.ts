/** What the operator of a fresh start needs to find: where the console, the API docs and the admin key are. */
export interface StartLocations {
  url: string;
  console: string;
  docs: string;
  /** The file the admin key is kept in, or where it came from. */
  adminKey: string;
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
  return {
    url: base,
    console: `${base}/console`,
    docs: `${base}/docs`,
    adminKey: input.adminKeyFromEnvironment
      ? 'the ADMIN_API_KEY environment variable'
      : `${input.dataDir}/admin-api-key`,
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
    '',
    '',
  ].join('\n');
}
