import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const eslint = new ESLint({ cwd: root });

/** The import lines of `source`, linted as if it were the file at `file` (under packages/server/src). */
async function restrictedImports(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport {};\n`, {
    filePath: path.join(root, 'packages/server/src', file),
  });
  return result!.messages
    .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
    .map((m) => source.split('\n')[m.line - 1]!);
}

/** docs/architecture.md "The rules, and where they are enforced": each arrow that points the wrong way fails lint. */
describe('layer rules (eslint.config.js)', () => {
  it('keeps services free of Fastify, Kysely and viem, type imports included', async () => {
    const lines = [
      "import { getAddress } from 'viem';",
      "import type { Kysely } from 'kysely';",
      "import type { FastifyInstance } from 'fastify';",
      "import type { App } from '../../http/types.js';",
    ];
    expect(await restrictedImports('services/content/example.ts', lines.join('\n'))).toEqual(lines);
  });

  it('lets services name store and chain types but never construct a store or a gateway', async () => {
    const refused = [
      "import { SlotStore } from '../../stores/slotStore.js';",
      "import { ContentTokenGateway } from '../../chain/contentTokenGateway.js';",
      "import { OperatorWallet } from '../../chain/operations/operatorWallet.js';",
      "import { createServices } from '../../composition/index.js';",
    ];
    const allowed = [
      "import type { SlotStore as Store } from '../../stores/slotStore.js';",
      "import type { ChainGateway } from '../../chain/chainGateway.js';",
      "import type { UsageBatch } from '../../chain/contentTokenTypes.js';",
      "import { checksumAddress } from '../../chain/address.js';",
      "import { addressOfPrivateKey } from '../../chain/operations/operationOwner.js';",
    ];
    expect(await restrictedImports('services/slots/example.ts', [...refused, ...allowed].join('\n'))).toEqual(
      refused,
    );
  });

  it('refuses every upward arrow: chain and stores never import services, http or composition', async () => {
    // The arrow the content gateway used to draw: port types imported from services/.
    const chainUp = [
      "import type { ContentTokenChain } from '../services/content/ports.js';",
      "import type { SlotStore } from '../stores/slotStore.js';",
      "import type { Services } from '../composition/index.js';",
    ];
    expect(await restrictedImports('chain/example.ts', chainUp.join('\n'))).toEqual(chainUp);
    const storesUp = [
      "import type { SlotService } from '../services/slots/slotService.js';",
      "import type { ChainGateway } from '../chain/chainGateway.js';",
      "import type { App } from '../http/types.js';",
    ];
    expect(await restrictedImports('stores/example.ts', storesUp.join('\n'))).toEqual(storesUp);
  });

  it('keeps http and cli on services: no stores, no Kysely, no gateways, not the whole Composition', async () => {
    const refused = [
      "import type { Slot } from '../../stores/slotStore.js';",
      "import { sql } from 'kysely';",
      "import type { ChainGateway } from '../../chain/chainGateway.js';",
      "import { createServices } from '../../composition/index.js';",
      // What the root built besides the services (stores, gateways) is for the process and the tests.
      "import type { Composition } from '../../composition/index.js';",
      "import type { ChainServices } from '../../composition/chain.js';",
      "import { StartupProgress } from '../../composition/startupProgress.js';",
    ];
    const allowed = [
      "import type { Services } from '../../composition/index.js';",
      "import type { OfflineServices } from '../../composition/offline.js';",
      "import type { StartupProgress } from '../../composition/startupProgress.js';",
      "import type { Address } from '../../chain/types.js';",
      "import { toAddress } from '../../chain/address.js';",
      "import type { SlotService } from '../../services/slots/slotService.js';",
    ];
    const source = [...refused, ...allowed].join('\n');
    expect(await restrictedImports('http/routes/example.ts', source)).toEqual(refused);
    expect(await restrictedImports('cli/commands/example.ts', source)).toEqual(refused);
  });

  it('lets the composition root import stores, gateways and services together', async () => {
    const wiring = [
      "import { SlotStore } from '../stores/slotStore.js';",
      "import { DexLedger } from '../chain/dexLedger.js';",
      "import { SlotService } from '../services/slots/slotService.js';",
    ];
    expect(await restrictedImports('composition/example.ts', wiring.join('\n'))).toEqual([]);
  });

  it('keeps crypto/, db/ and workers/ leaves: they import no layer', async () => {
    const up = [
      "import type { SlotService } from '../services/slots/slotService.js';",
      "import type { App } from '../http/types.js';",
      "import type { SlotStore } from '../stores/slotStore.js';",
      "import type { ChainGateway } from '../chain/chainGateway.js';",
      "import type { Services } from '../composition/index.js';",
    ];
    for (const folder of ['crypto', 'db', 'workers']) {
      expect(await restrictedImports(`${folder}/example.ts`, up.join('\n'))).toEqual(up);
    }
    // A leaf may use another: the PBKDF2 pool is built on workers/.
    const sideways = ["import { AnsweringWorker } from '../workers/answeringWorker.js';"];
    expect(await restrictedImports('crypto/example.ts', sideways.join('\n'))).toEqual([]);
  });
});
