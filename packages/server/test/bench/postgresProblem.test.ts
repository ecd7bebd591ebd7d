import { describe, expect, it } from 'vitest';
import { postgresProblem } from '../../../../bench/runs.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';

/** bench:all and its regression guard stop on what this returns, before any run (docs/performance.md). */
describe('postgresProblem: why a named PostgreSQL cannot be used for the benchmarks', () => {
  it('names a server that refuses the connection, with the driver’s reason', async () => {
    const problem = await postgresProblem('postgres://postgres@127.0.0.1:9/test');
    expect(problem).toMatch(
      /^the PostgreSQL of --pg or DATABASE_URL cannot be used \(.*ECONNREFUSED.*\); nothing was run$/,
    );
  });

  it.runIf(postgresAvailable)(
    'names a role the server does not know, and passes a usable server',
    async () => {
      const unknownRole = new URL(TEST_DATABASE_URL);
      unknownRole.username = 'dauth_no_such_role';
      expect(await postgresProblem(unknownRole.href)).toMatch(/role "dauth_no_such_role" does not exist/);
      expect(await postgresProblem(TEST_DATABASE_URL)).toBeUndefined();
    },
  );
});
