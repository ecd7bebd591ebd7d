import { generatePrivateKey } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { DATA_DIR: '/tmp/dauth-config-test' };
const external = {
  CHAIN_RPC_URL: 'http://127.0.0.1:8545',
  DEPLOYER_PRIVATE_KEY: generatePrivateKey(),
  RELAYER_PRIVATE_KEY: generatePrivateKey(),
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

describe('BUNDLER_RPC_URL', () => {
  it('is unset by default: every operation goes to the built-in bundler', () => {
    expect(loadConfig({ ...base, ...external }).bundlerRpcUrl).toBeUndefined();
  });

  it('takes an http(s) URL on an external chain', () => {
    const url = 'https://bundler.example/rpc?apikey=secret';
    expect(loadConfig({ ...base, ...external, BUNDLER_RPC_URL: url }).bundlerRpcUrl).toBe(url);
  });

  it('refuses another scheme, and the embedded chain (its port is picked at each start)', () => {
    expect(problemsOf({ ...external, BUNDLER_RPC_URL: 'ws://127.0.0.1:3000' }).join()).toMatch(
      /BUNDLER_RPC_URL: must use http: or https:/,
    );
    expect(problemsOf({ BUNDLER_RPC_URL: 'http://127.0.0.1:3000' })).toContain(
      'BUNDLER_RPC_URL: needs an external chain (CHAIN_RPC_URL) that the bundler serves too',
    );
  });
});

describe('BUNDLE_MAX_OPERATIONS', () => {
  it('is 1024 by default, so a bundle is bounded by its gas and calldata ceilings rather than a count', () => {
    expect(loadConfig({ ...base }).bundleMaxOperations).toBe(1024);
    expect(loadConfig({ ...base, ...external }).bundleMaxOperations).toBe(1024);
  });

  it('takes a count from 1 (one operation per transaction) to 10000', () => {
    expect(loadConfig({ ...base, BUNDLE_MAX_OPERATIONS: '64' }).bundleMaxOperations).toBe(64);
    expect(loadConfig({ ...base, BUNDLE_MAX_OPERATIONS: '1' }).bundleMaxOperations).toBe(1);
    expect(loadConfig({ ...base, BUNDLE_MAX_OPERATIONS: '10000' }).bundleMaxOperations).toBe(10_000);
  });

  it('refuses zero, a fraction, a number over 10000 and text, naming the setting', () => {
    for (const value of ['0', '2.5', '10001', 'many']) {
      const problems = problemsOf({ BUNDLE_MAX_OPERATIONS: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^BUNDLE_MAX_OPERATIONS: /);
    }
  });
});

describe('BUNDLES_IN_FLIGHT and BUNDLE_GAS_MARGIN_PERCENT', () => {
  it('default to 8 bundles in flight and a 20 % margin over the simulated gas', () => {
    const config = loadConfig({ ...base, ...external });
    expect(config.bundlesInFlight).toBe(8);
    expect(config.bundleGasMarginPercent).toBe(20);
  });

  it('take values in range and refuse others', () => {
    const config = loadConfig({
      ...base,
      ...external,
      BUNDLES_IN_FLIGHT: '1',
      BUNDLE_GAS_MARGIN_PERCENT: '0',
    });
    expect(config.bundlesInFlight).toBe(1);
    expect(config.bundleGasMarginPercent).toBe(0);
    expect(problemsOf({ BUNDLES_IN_FLIGHT: '0' }).join()).toMatch(/BUNDLES_IN_FLIGHT/);
    expect(problemsOf({ BUNDLES_IN_FLIGHT: '17' }).join()).toMatch(/BUNDLES_IN_FLIGHT/);
    expect(problemsOf({ BUNDLE_GAS_MARGIN_PERCENT: '-1' }).join()).toMatch(/BUNDLE_GAS_MARGIN_PERCENT/);
  });
});
