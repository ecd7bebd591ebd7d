#!/usr/bin/env node
// First: stops an unsupported Node before any native addon loads (it would crash without a word).
import './runtimeGuard.js';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino, { type Logger } from 'pino';
import { type CliCommand, type CliIo, type CliValues, CommandFailure, UsageError } from './cli/command.js';
import { commands, findCommand, helpText } from './cli/registry.js';
import { ServerApi } from './cli/serverApi.js';
import { createOfflineServices } from './composition/offline.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { isAppError } from './errors.js';
import { loggerOptions } from './logger.js';
import type { PlatformSecrets } from './secrets.js';

/**
 * The `dauth` command: the same configuration as the server (same database, same secrets), without
 * the HTTP server. Each command says what it needs (`cli/command.ts`): the database only, beside a
 * live server, or the running server's API for anything that touches the chain (the server owns the
 * embedded chain). Prints JSON on stdout; logs go to stderr.
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
    writeError({
      success: false,
      error: 'unknown_command',
      message: `Unknown command: dauth ${argv.join(' ')}; \`dauth --help\` lists the commands`,
    });
    return 2;
  }
  const { command, rest } = found;
  if (asksForHelp(rest)) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  let close: (() => Promise<void>) | undefined;
  try {
    let values;
    try {
      const parsed = parseArgs({
        args: rest,
        options: {
          ...command.options,
          ...deprecatedOptionSpecs(command),
          ...(command.needs === 'server' ? { server: { type: 'string' } } : {}),
        },
        strict: true,
        allowPositionals: true,
      });
      if (parsed.positionals.length > (command.positionals ?? 0)) {
        throw new UsageError(`Unexpected argument: ${parsed.positionals[command.positionals ?? 0]}`);
      }
      values = { ...renameDeprecated(command, parsed.values), positionals: parsed.positionals };
      if (typeof (parsed.values as CliValues).password === 'string') {
        // Decisions §8: a password in argv lands in the shell history and the process list.
        writeError({
          warning: 'password_in_argv',
          message:
            '--password leaves the password in your shell history and the process list; prefer --password-stdin',
        });
      }
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const config = loadConfig(env);
    if (command.needs !== 'server') refuseUnsetDataDir(env, config);
    const level = env.LOG_LEVEL ? config.logLevel : 'warn';
    const logger = pino(loggerOptions(level), pino.destination(2));
    const result = await runCommand(command, values, config, logger, io, (c) => (close = c));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      writeError({
        success: false,
        error: 'usage_error',
        message: err.message,
        usage: `dauth ${command.path.join(' ')} ${command.usage}`,
      });
      return 2;
    }
    if (err instanceof ConfigError) {
      writeError({ success: false, error: 'invalid_configuration', message: err.message });
      return 2;
    }
    const body =
      isAppError(err) || err instanceof CommandFailure
        ? { success: false, error: err.code, message: err.message }
        : {
            success: false,
            error: 'internal_error',
            message: err instanceof Error ? err.message : String(err),
          };
    writeError(body);
    return 1;
  } finally {
    await close?.();
  }
}

/** `--help` or `-h` among a command's own arguments (not after `--`, where it would be a value). */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

function commandHelp(command: CliCommand): string {
  return `dauth ${command.path.join(' ')} ${command.usage}\n\n  ${command.summary}\n`;
}

/**
 * A command that opens the database with neither DATA_DIR nor DATABASE_URL set, run where no
 * `./data/dauth.sqlite` exists, would create an empty platform there (new secrets, no users) and then
 * answer `invalid_credentials` as if the account were wrong. Nobody means that: say where it looked.
 * Setting DATA_DIR explicitly (even to an empty folder) still creates one on purpose.
 */
function refuseUnsetDataDir(env: Record<string, string | undefined>, config: Config): void {
  if (env.DATA_DIR || env.DATABASE_URL) return;
  if (fs.existsSync(path.join(config.dataDir, 'dauth.sqlite'))) return;
  throw new ConfigError([
    `no dauth data in ${config.dataDir} (DATA_DIR is not set and defaults to ./data of the current directory): ` +
      'set DATA_DIR to the directory the server uses (or DATABASE_URL), or run the command where `npm start` ran',
  ]);
}

/** Errors, usage mistakes and warnings: one JSON object a line on stderr, like the API's error shape. */
function writeError(body: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify(body)}\n`);
}

/** The deprecated names parse like the options they stand for. */
function deprecatedOptionSpecs(command: CliCommand): CliCommand['options'] {
  const specs: CliCommand['options'] = {};
  for (const [old, current] of Object.entries(command.deprecatedOptions ?? {})) {
    const spec = command.options[current];
    if (spec) specs[old] = spec;
  }
  return specs;
}

/** Moves a deprecated option's value to its current name, with a warning; both at once is a usage error. */
function renameDeprecated(command: CliCommand, values: CliValues): CliValues {
  const renamed: CliValues = { ...values };
  for (const [old, current] of Object.entries(command.deprecatedOptions ?? {})) {
    if (renamed[old] === undefined) continue;
    if (renamed[current] !== undefined)
      throw new UsageError(`give --${current} only (--${old} is its old name)`);
    renamed[current] = renamed[old];
    delete renamed[old];
    writeError({ warning: 'deprecated_option', message: `--${old} is deprecated: use --${current}` });
  }
  return renamed;
}

/** Wires what the command needs, then runs it; `onOpen` receives what must be closed afterwards. */
async function runCommand(
  command: CliCommand,
  values: CliValues,
  config: Config,
  logger: Logger,
  io: CliIo,
  onOpen: (close: () => Promise<void>) => void,
): Promise<unknown> {
  if (command.needs === 'server') {
    const server = typeof values.server === 'string' ? values.server : config.publicUrl;
    return command.run(values, new ServerApi(server.replace(/\/+$/, ''), config), io);
  }
  const services = await createOfflineServices(config, logger);
  onOpen(services.close);
  reportGeneratedKey(config, services.secrets);
  return command.run(values, services, io);
}

function reportGeneratedKey(config: Config, secrets: PlatformSecrets): void {
  if (!secrets.adminKeyGenerated) return;
  // First use of this DATA_DIR: the server will not print the key again (decisions §1: printed once).
  process.stderr.write(
    `Generated ADMIN_API_KEY (also saved in ${config.dataDir}/admin-api-key):\n  ${secrets.adminApiKey}\n`,
  );
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
