import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { CommandFailure, UsageError } from './command.js';

/**
 * The running server as `dauth` commands that need the chain reach it: over its public HTTP API, so
 * the embedded chain stays owned by the one server process. The URL is `--server`, else PUBLIC_URL
 * (default http://127.0.0.1:8080); the admin key is ADMIN_API_KEY, else DATA_DIR/admin-api-key.
 */
export class ServerApi {
  constructor(
    readonly url: string,
    private readonly config: Pick<Config, 'adminApiKey' | 'dataDir'>,
  ) {}

  /**
   * The admin key, read only when a command needs it (never printed), and never for a plain-http
   * server that is not this machine (decisions §8): anyone on the path would read it.
   */
  adminKey(): string {
    if (!mayCarryAdminKey(this.url)) {
      throw new UsageError(
        `refusing to send the admin key over plain http to ${new URL(this.url).host}: use an https:// --server, or run on the server's machine (loopback)`,
      );
    }
    if (this.config.adminApiKey) return this.config.adminApiKey;
    const file = path.join(this.config.dataDir, 'admin-api-key');
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new CommandFailure(
        'no_admin_key',
        `No admin key: set ADMIN_API_KEY or run with the server's DATA_DIR (${file} is missing)`,
      );
    }
  }

  /** Sends a JSON request; a non-2xx answer becomes the server's own error (code and message). */
  async request(method: string, route: string, body: unknown, bearer?: string): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${route}`, {
        method,
        headers: {
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new CommandFailure(
        'server_unreachable',
        `Cannot reach the dauth server at ${this.url} (${(err as Error).message}); start it with npm start, or give --server <url>`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { message: text };
    }
    if (!response.ok) {
      const answer = parsed as { error?: unknown; message?: unknown };
      throw new CommandFailure(
        typeof answer.error === 'string' ? answer.error : 'server_error',
        typeof answer.message === 'string' ? answer.message : `HTTP ${response.status}`,
      );
    }
    return parsed;
  }
}

/** https anywhere; plain http only to a loopback host (127.0.0.0/8, ::1, localhost). */
function mayCarryAdminKey(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol === 'https:') return true;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(host) ||
    host === '::1' ||
    /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(host)
  );
}
