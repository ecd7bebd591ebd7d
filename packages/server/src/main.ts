#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server.js';

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
  logger.info(
    { url: server.url, publicUrl: config.publicUrl, threadPoolSize: config.threadPoolSize },
    'dauth is listening',
  );

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
