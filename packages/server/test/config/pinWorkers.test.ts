import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { DATA_DIR: '/tmp/dauth-config-test' };

describe('PIN_WORKERS and PIN_WORKER_NICE (the PBKDF2 worker pool, docs/performance-pin.md)', () => {
  it('defaults to one worker per core at nice 19', () => {
    expect(loadConfig(base)).toMatchObject({ pinWorkers: availableParallelism(), pinWorkerNice: 19 });
  });

  it('takes explicit values, 0 leaving the workers at the process priority', () => {
    expect(loadConfig({ ...base, PIN_WORKERS: '3', PIN_WORKER_NICE: '0' })).toMatchObject({
      pinWorkers: 3,
      pinWorkerNice: 0,
    });
  });

  it('refuses values out of range', () => {
    for (const env of [{ PIN_WORKERS: '0' }, { PIN_WORKER_NICE: '-5' }, { PIN_WORKER_NICE: '20' }]) {
      expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    }
  });
});
