import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/database.js';
import { replaceFileDurably } from './durableFile.js';
import type { Address, ContractAddresses } from './types.js';

declare module '../db/database.js' {
  interface Database {
    platform_settings: { key: string; value: string; updated_at: number };
  }
}

/** What was deployed on a chain, so a restart reuses it instead of deploying again. */
export interface DeploymentRecord {
  chainId: number;
  contracts: ContractAddresses;
  /** The platform operator wallet wired into the dex and the content-token contract. */
  operatorWallet: Address;
  deployedAt: string;
}

/** Where the record lives. */
export interface DeploymentRecordStore {
  load(chainId: number): Promise<DeploymentRecord | undefined>;
  /** Keeps the first record written for a chain; returns the one that is stored afterwards. */
  save(record: DeploymentRecord): Promise<DeploymentRecord>;
  /** What an operator does to replace recorded contracts an earlier version deployed (startup error). */
  readonly redeployAdvice: string;
}

/**
 * The embedded chain's record: `DATA_DIR/chain/deployment.json`, beside the anvil state it describes, so the
 * two always travel together (a copied or deleted data directory never leaves them disagreeing).
 */
export class FileDeploymentRecordStore implements DeploymentRecordStore {
  constructor(private readonly file: string) {}

  get redeployAdvice(): string {
    // DATA_DIR/chain/deployment.json: the chain's state, this record and the database's chain journal
    // belong together (the journal would replay the old deployment onto a fresh chain).
    const dataDir = path.dirname(path.dirname(this.file));
    return (
      `Embedded chain: stop the service and delete the data directory ${dataDir} entirely (the chain state ` +
      `and ${this.file} with the database that journals them); the next start deploys the current contracts. ` +
      'Everything on the old chain (wallets, slots, content tokens) starts over.'
    );
  }

  async load(chainId: number): Promise<DeploymentRecord | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const record = JSON.parse(text) as DeploymentRecord;
    return record.chainId === chainId ? record : undefined;
  }

  async save(record: DeploymentRecord): Promise<DeploymentRecord> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await replaceFileDurably(this.file, `${JSON.stringify(record, null, 2)}\n`);
    return record;
  }
}

/**
 * An external chain's record (contracts deployed by the service with DEPLOYER_PRIVATE_KEY): the
 * `platform_settings` row `chain.deployment.<chainId>`, shared by every replica on the same database. The
 * first replica to store one wins; a replica that deployed concurrently adopts the stored record.
 */
export class SettingsDeploymentRecordStore implements DeploymentRecordStore {
  constructor(private readonly db: Db) {}

  private static key(chainId: number): string {
    return `chain.deployment.${chainId}`;
  }

  readonly redeployAdvice =
    'External chain: deploy the current contracts, either by deleting the platform_settings row ' +
    "'chain.deployment.<chainId>' and starting once with DEPLOYER_PRIVATE_KEY (it deploys and records them), " +
    'or with your own deployment set as CONTRACT_*. Slots and content-token balances on the old contracts do ' +
    'not move to the new ones.';

  async load(chainId: number): Promise<DeploymentRecord | undefined> {
    const row = await this.db
      .selectFrom('platform_settings')
      .select('value')
      .where('key', '=', SettingsDeploymentRecordStore.key(chainId))
      .executeTakeFirst();
    return row ? (JSON.parse(row.value) as DeploymentRecord) : undefined;
  }

  async save(record: DeploymentRecord): Promise<DeploymentRecord> {
    await this.db
      .insertInto('platform_settings')
      .values({
        key: SettingsDeploymentRecordStore.key(record.chainId),
        value: JSON.stringify(record),
        updated_at: Date.now(),
      })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    return (await this.load(record.chainId)) ?? record;
  }
}
