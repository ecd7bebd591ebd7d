import { generatePrivateKey } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { DATA_DIR: '/tmp/dauth-config-test' };
const external = {
  CHAIN_RPC_URL: 'http://127.0.0.1:8545',
  DEPLOYER_PRIVATE_KEY: generatePrivateKey(),
  PAYMASTER_SIGNER_PRIVATE_KEY: generatePrivateKey(),
  OPERATOR_OWNER_PRIVATE_KEY: generatePrivateKey(),
};
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ ...base, ...env });
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

describe('RELAYER_PRIVATE_KEYS and REPLICA_ID', () => {
  const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()];

  it("picks this replica's key by REPLICA_ID and keeps the whole list", () => {
    const config = loadConfig({
      ...base,
      ...external,
      RELAYER_PRIVATE_KEYS: keys.join(', '),
      REPLICA_ID: '2',
    });
    expect(config.relayers).toEqual({ all: keys, index: 2 });
    expect(config.chain).toMatchObject({ kind: 'external', relayerKey: keys[2] });
  });

  it('treats RELAYER_PRIVATE_KEY as a list of one, and a single listed key needs no REPLICA_ID', () => {
    expect(loadConfig({ ...base, ...external, RELAYER_PRIVATE_KEY: keys[0]! }).relayers).toEqual({
      all: [keys[0]],
      index: 0,
    });
    expect(loadConfig({ ...base, ...external, RELAYER_PRIVATE_KEYS: keys[1]! }).relayers).toEqual({
      all: [keys[1]],
      index: 0,
    });
    // The embedded chain uses them too (each listed key is funded there); unset, its development key.
    expect(loadConfig(base).relayers).toBeUndefined();
    expect(
      loadConfig({ ...base, RELAYER_PRIVATE_KEYS: keys.join(','), REPLICA_ID: '1' }).relayers?.index,
    ).toBe(1);
  });

  it('refuses both settings at once', () => {
    expect(
      problemsOf({
        ...external,
        RELAYER_PRIVATE_KEY: keys[0]!,
        RELAYER_PRIVATE_KEYS: keys.join(','),
        REPLICA_ID: '0',
      }),
    ).toEqual([
      'RELAYER_PRIVATE_KEYS: set either RELAYER_PRIVATE_KEY (one key) or RELAYER_PRIVATE_KEYS (one per replica), not both',
    ]);
  });

  it('refuses a REPLICA_ID out of range, a missing one, and a negative one', () => {
    expect(problemsOf({ ...external, RELAYER_PRIVATE_KEYS: keys.join(','), REPLICA_ID: '3' })).toEqual([
      'REPLICA_ID: 3 is out of range: RELAYER_PRIVATE_KEYS has 3 keys (0 to 2)',
    ]);
    expect(problemsOf({ ...external, RELAYER_PRIVATE_KEYS: keys.join(',') })).toEqual([
      'REPLICA_ID: required with 3 RELAYER_PRIVATE_KEYS (0 to 2)',
    ]);
    expect(problemsOf({ ...external, RELAYER_PRIVATE_KEYS: keys.join(','), REPLICA_ID: '-1' })).toEqual([
      'REPLICA_ID: must be 0 or more',
    ]);
  });

  it('refuses a second replica on a single RELAYER_PRIVATE_KEY (their nonces would collide)', () => {
    expect(problemsOf({ ...external, RELAYER_PRIVATE_KEY: keys[0]!, REPLICA_ID: '1' })).toEqual([
      'REPLICA_ID: 1 with a single RELAYER_PRIVATE_KEY would share its nonces with replica 0; list one key per replica in RELAYER_PRIVATE_KEYS',
    ]);
    expect(
      loadConfig({ ...base, ...external, RELAYER_PRIVATE_KEY: keys[0]!, REPLICA_ID: '0' }).relayers,
    ).toEqual({
      all: [keys[0]],
      index: 0,
    });
  });

  it('refuses a malformed or repeated key, naming its position and never the key', () => {
    const problems = problemsOf({
      ...external,
      RELAYER_PRIVATE_KEYS: `${keys[0]},0xnothex,${keys[0]!.toUpperCase().replace('0X', '0x')}`,
      REPLICA_ID: '0',
    });
    expect(problems).toEqual([
      'RELAYER_PRIVATE_KEYS: entry 1 must be a private key (64 hex characters)',
      'RELAYER_PRIVATE_KEYS: entry 2 repeats an earlier key',
    ]);
    expect(problems.join('\n')).not.toContain(keys[0]!.slice(2, 20));
  });

  it('requires one of the two on an external chain', () => {
    expect(problemsOf(external)).toEqual([
      'RELAYER_PRIVATE_KEY (or RELAYER_PRIVATE_KEYS): required when CHAIN_RPC_URL is set',
    ]);
  });
});
