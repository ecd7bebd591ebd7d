import { type CliCommand, CommandFailure, optionalString, requiredString, UsageError } from '../command.js';

const AMOUNT = /^[0-9]{1,78}$/;

/**
 * `dauth faucet --address 0x… [--native <wei>] [--token <base units>]`: development funds through the
 * running server's `POST /v1/admin/faucet` (chain 31337 only), so the server keeps its chain to itself.
 */
export const faucet: CliCommand = {
  path: ['faucet'],
  summary:
    'Fund an address on the development chain through the running server (admin key from ADMIN_API_KEY or DATA_DIR/admin-api-key)',
  usage: '--address <0x…> [--native <wei>] [--token <base units>] [--server <url>]',
  needs: 'server',
  options: { address: { type: 'string' }, native: { type: 'string' }, token: { type: 'string' } },
  async run(values, server) {
    const address = requiredString(values, 'address');
    const native = optionalString(values, 'native');
    const token = optionalString(values, 'token');
    if (native === undefined && token === undefined) throw new UsageError('give --native and/or --token');
    for (const [name, value] of [
      ['native', native],
      ['token', token],
    ] as const) {
      if (value !== undefined && !AMOUNT.test(value)) {
        throw new UsageError(`--${name} must be a whole number (decimal digits)`);
      }
    }
    const answer = await server.request(
      'POST',
      '/v1/admin/faucet',
      { address, ...(native ? { native } : {}), ...(token ? { token } : {}) },
      server.adminKey(),
    );
    if (typeof answer !== 'object' || answer === null) {
      throw new CommandFailure('server_error', 'unexpected faucet answer');
    }
    return answer;
  },
};
