import { notFound } from '../../errors.js';
import { type CliCommand, requiredString } from '../command.js';

/**
 * `dauth provider show --client-id … [--reveal]`: an app's content-provider settings — its cuids and
 * their terms, the payload mode — and, only with `--reveal`, the AES-256-CTR key and IV unsealed with
 * this DATA_DIR's MASTER_KEY (a secret: the output must be handled like the client secret).
 */
export const providerShow: CliCommand = {
  path: ['provider', 'show'],
  summary:
    "Show an app's content providers (cuids, terms, payload mode); --reveal also PRINTS THE SECRET payload key and IV",
  usage: '--client-id <client_id> [--reveal]',
  needs: 'database',
  options: { 'client-id': { type: 'string' }, reveal: { type: 'boolean' } },
  async run(values, services) {
    const clientId = requiredString(values, 'client-id');
    if (!(await services.clients.findClient(clientId))) {
      throw notFound('not_found', `No app with the client_id ${clientId}`);
    }
    const providers = await services.contentProviders.listProvidersByClient(clientId);
    const mode = await services.providerKeys.modeOf(clientId);
    const shown: Record<string, unknown> = {
      success: true,
      client_id: clientId,
      providers: providers.map((p) => ({
        cuid: p.cuid,
        state: p.state,
        release_per: p.releasePer,
        owner_addr: p.ownerAddr,
        terms_frozen: p.termsFrozen,
        tx_hash: p.txHash ?? null,
      })),
      payload_mode: mode?.mode ?? null,
      consume_auth: mode?.consumeAuth ?? null,
      has_gcm_key: mode?.hasGcmKey ?? false,
    };
    if (values.reveal === true) {
      const keys = await services.providerKeys.revealCtrKeys(clientId);
      shown.key = keys?.keyHex ?? null;
      shown.iv = keys?.ivHex ?? null;
    }
    return shown;
  },
};
