#!/usr/bin/env node
// First: stops an unsupported Node before any native addon loads (it would crash without a word).
import './runtimeGuard.js';
import { ConfigError, loadConfig } from './config.js';
import { prettyLogs } from './logger.js';
import { startServer } from './server.js';
import { startBanner, startLocations } from './startBanner.js';

/** The process: configuration, listen, print what the operator needs, close gracefully. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const server = await startServer(config);
  const { logger, secrets } = server.services;
  if (secrets.adminKeyGenerated) {
    // Printed once, on the terminal only (never through the logger), as decisions §1 asks.
    process.stdout.write(
      `\nGenerated ADMIN_API_KEY (also saved in ${config.dataDir}/admin-api-key):\n  ${secrets.adminApiKey}\n\n`,
    );
  }
  const locations = startLocations({
    publicUrl: config.publicUrl,
    listeningUrl: server.url,
    dataDir: config.dataDir,
    adminKeyFromEnvironment: config.adminApiKey !== undefined,
  });
  logger.info(
    {
      url: server.url,
      publicUrl: config.publicUrl,
      threadPoolSize: config.threadPoolSize,
      console: locations.console,
      docs: locations.docs,
      adminKey: locations.adminKey,
    },
    'dauth is listening',
  );
  if (locations.passkeys) logger.warn({ publicUrl: config.publicUrl }, locations.passkeys);
  // A person at a terminal gets the locations as plain lines too; a log pipeline has them as fields above.
  if (prettyLogs(config.logFormat, process.stdout.isTTY)) process.stdout.write(startBanner(locations));

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error('dauth failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
