import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const storesDir = path.resolve(here, '../../src/stores');
const suitesDir = path.resolve(here, '../stores');

describe('store suites', () => {
  it('give every store of src/stores a suite of its own in test/stores that runs once per database', () => {
    const stores = fs
      .readdirSync(storesDir)
      .filter((file) => /^export class /m.test(fs.readFileSync(path.join(storesDir, file), 'utf8')));
    expect(stores.length).toBeGreaterThanOrEqual(18);
    const missing = stores.filter((file) => {
      const suite = path.join(suitesDir, file.replace(/\.ts$/, '.test.ts'));
      return !fs.existsSync(suite) || !fs.readFileSync(suite, 'utf8').includes('describe.each(');
    });
    expect(missing).toEqual([]);
  });
});
