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
    // A store over the database runs once per database (`testDatabases`, or the bus's `transports`, which
    // include PostgreSQL); a store over Redis alone runs against the real Redis.
    const missing = stores.filter((file) => {
      const suite = path.join(suitesDir, file.replace(/\.ts$/, '.test.ts'));
      if (!fs.existsSync(suite)) return true;
      const text = fs.readFileSync(suite, 'utf8');
      const overDatabase = fs
        .readFileSync(path.join(storesDir, file), 'utf8')
        .includes("'../db/database.js'");
      return overDatabase
        ? !/describe\.each\((testDatabases|transports\b)/.test(text)
        : !text.includes('redisAvailable');
    });
    expect(missing).toEqual([]);
  });
});
