import type { ParseArgsConfig } from 'node:util';
import type { Services } from '../composition.js';

export type CliOptions = NonNullable<ParseArgsConfig['options']>;
export type CliValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * One `dauth` sub-command. Commands are plain objects in `cli/commands/*.ts`, listed in
 * `cli/registry.ts`; the runner parses their options, wires the services (never the HTTP
 * server) and prints what `run` returns as JSON.
 */
export interface CliCommand {
  /** The words that select it: `['user', 'create']` is `dauth user create`. */
  path: string[];
  summary: string;
  /** Option synopsis shown in help, e.g. `--email <e-mail> --password <password>`. */
  usage: string;
  options: CliOptions;
  /** How many positional arguments it takes (0 when omitted); they arrive as `values.positionals`. */
  positionals?: number;
  run(values: CliValues, services: Services, io: CliIo): Promise<unknown>;
}

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
