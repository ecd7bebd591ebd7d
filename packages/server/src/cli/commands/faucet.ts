import { type CliCommand, CommandFailure, optionalString, requiredString, UsageError } from '../command.js';

const AMOUNT = /^[0-9]{1,78}$/;
/** Without amounts: 10 ether and 1,000 platform tokens (18 decimals), enough for a first demo. */
export const DEFAULT_NATIVE_WEI = (10n * 10n ** 18n).toString();
export const DEFAULT_TOKEN_UNITS = (1000n * 10n ** 18n).toString();

/**
 * `dauth faucet --address 0x… [--native <wei>] [--token <base units>]`: development funds through the
 * running server's `POST /v1/admin/faucet` (chain 31337 only), so the server keeps its chain to itself.
 * Without either amount it gives the defaults above.
 */
export const faucet: CliCommand = {
  path: ['faucet'],
  summary:
    'Fund an address on the development chain through the running server (admin key from ADMIN_API_KEY or DATA_DIR/admin-api-key)',
  usage:
    '--address <0x…> [--native <wei>] [--token <base units>] [--server <url>]  (default: 10 ether and 1000 tokens)',
  needs: 'server',
  options: { address: { type: 'string' }, native: { type: 'string' }, token: { type: 'string' } },
  async run(values, server) {
    const address = requiredString(values, 'address');
    let native = optionalString(values, 'native');
    let token = optionalString(values, 'token');
    if (native === undefined && token === undefined) {
      native = DEFAULT_NATIVE_WEI;
      token = DEFAULT_TOKEN_UNITS;
    }
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
