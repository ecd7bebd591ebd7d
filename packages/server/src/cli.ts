#!/usr/bin/env node
import { parseArgs } from 'node:util';
import pino from 'pino';
import { type CliIo, UsageError } from './cli/command.js';
import { commands, findCommand, helpText } from './cli/registry.js';
import { createServices, type Services } from './composition.js';
import { ConfigError, loadConfig } from './config.js';
import { isAppError } from './errors.js';
import { loggerOptions } from './logger.js';

/**
 * The `dauth` command: the same configuration and composition as the server (same database,
 * same secrets), without the HTTP server. Prints JSON on stdout; logs go to stderr.
 */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(helpText(commands));
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    process.stderr.write(`Unknown command: dauth ${argv.join(' ')}\n\n${helpText(commands)}`);
    return 2;
  }
  const { command, rest } = found;
  let services: Services | undefined;
  try {
    let values;
    try {
      const parsed = parseArgs({
        args: rest,
        options: command.options,
        strict: true,
        allowPositionals: true,
      });
      if (parsed.positionals.length > (command.positionals ?? 0)) {
        throw new UsageError(`Unexpected argument: ${parsed.positionals[command.positionals ?? 0]}`);
      }
      values = { ...parsed.values, positionals: parsed.positionals };
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const config = loadConfig(env);
    const level = env.LOG_LEVEL ? config.logLevel : 'warn';
    services = await createServices(config, { logger: pino(loggerOptions(level), pino.destination(2)) });
    if (services.secrets.adminKeyGenerated) {
      // First use of this DATA_DIR: the server will not print the key again (decisions §1: printed once).
      process.stderr.write(
        `Generated ADMIN_API_KEY (also saved in ${config.dataDir}/admin-api-key):\n  ${services.secrets.adminApiKey}\n`,
      );
    }
    const result = await command.run(values, services, io);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\nUsage: dauth ${command.path.join(' ')} ${command.usage}\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    const body = isAppError(err)
      ? { success: false, error: err.code, message: err.message }
      : {
          success: false,
          error: 'internal_error',
          message: err instanceof Error ? err.message : String(err),
        };
    process.stderr.write(`${JSON.stringify(body)}\n`);
    return 1;
  } finally {
    await services?.close();
  }
}

const stdinIo: CliIo = {
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

runCli(process.argv.slice(2), process.env, stdinIo).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('dauth failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
