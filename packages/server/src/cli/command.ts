import type { ParseArgsConfig } from 'node:util';
import type { OfflineServices } from '../composition/offline.js';
import type { ServerApi } from './serverApi.js';

export type CliOptions = NonNullable<ParseArgsConfig['options']>;
export type CliValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

interface CommandBase {
  /** The words that select it: `['user', 'create']` is `dauth user create`. */
  path: string[];
  summary: string;
  /** Option synopsis shown in help, e.g. `--email <e-mail> --password <password>`. */
  usage: string;
  options: CliOptions;
  /** How many positional arguments it takes (0 when omitted); they arrive as `values.positionals`. */
  positionals?: number;
  /** Old option names still accepted, each mapped to its current name (a warning says so on stderr). */
  deprecatedOptions?: Record<string, string>;
}

/**
 * One `dauth` sub-command. Commands are plain objects in `cli/commands/*.ts`, listed in
 * `cli/registry.ts`; the runner parses their options, wires what the command `needs` and prints what
 * `run` returns as JSON:
 * - `database`: accounts, apps and provider records only; never starts the chain, so it runs beside a
 *   live server on the same DATA_DIR;
 * - `server`: talks to the running server over HTTP (admin key, or a login JWT); every command that
 *   touches the chain, which the server owns.
 */
export type CliCommand =
  | (CommandBase & {
      needs: 'database';
      run(values: CliValues, services: OfflineServices, io: CliIo): Promise<unknown>;
    })
  | (CommandBase & {
      needs: 'server';
      run(values: CliValues, server: ServerApi, io: CliIo): Promise<unknown>;
    });

/** What a command may read besides its options (stdin for secrets). */
export interface CliIo {
  readStdin(): Promise<string>;
}

/** A wrong invocation: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function requiredString(values: CliValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalString(values: CliValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringList(values: CliValues, name: string): string[] {
  const value = values[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** `--password <p>` or `--password-stdin` (one line from stdin, its newline removed). */
export async function passwordOption(values: CliValues, io: CliIo): Promise<string> {
  let password = optionalString(values, 'password');
  if (values['password-stdin'] === true) {
    if (password !== undefined) throw new UsageError('give --password or --password-stdin, not both');
    password = (await io.readStdin()).replace(/\r?\n$/, '');
  }
  if (password === undefined) throw new UsageError('--password (or --password-stdin) is required');
  return password;
}

/**
 * A failure the CLI itself reports (server unreachable, no admin key) or relays from the server's
 * answer: printed as `{success: false, error: code, message}`, exit code 1. Not an HTTP error of this
 * process, so not in the error catalogue.
 */
export class CommandFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CommandFailure';
  }
}
