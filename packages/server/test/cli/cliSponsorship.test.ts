import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/http.js';
import { runCli as dauth, startServerWithApp, type CliAppFixture } from './cliRunner.js';

describe('dauth client sponsorship [set] through the running server', () => {
  let env: Record<string, string>;
  let owner: TestUser;
  let clientId: string;
  let fixture: CliAppFixture;
  beforeAll(async () => {
    fixture = await startServerWithApp({
      name: 'Sponsored game',
      redirect_uris: ['https://game.example/cb'],
    });
    ({ env, owner, clientId } = fixture);
  }, 60_000);
  afterAll(() => fixture.close());

  const asOwner = () => ['--client-id', clientId, '--owner-email', owner.email, '--password-stdin'];
  const run = (args: string[]) => dauth(args, env, `${owner.password}\n`);

  it('sets budgets flag by flag (the rest stays), clears one with none, and shows the policy', async () => {
    const first = await run([
      'client',
      'sponsorship',
      'set',
      ...asOwner(),
      '--player-gas',
      '2000000',
      '--app-gas',
      '900000000',
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      client_id: clientId,
      daily_gas_per_player: 2_000_000,
      daily_gas_app: 900_000_000,
      daily_gas_per_guest: null,
    });
    const second = await run([
      'client',
      'sponsorship',
      'set',
      ...asOwner(),
      '--app-gas',
      'none',
      '--ops-per-minute',
      '5',
    ]);
    expect(second.code, second.stderr).toBe(0);
    const shown = await run(['client', 'sponsorship', ...asOwner()]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      daily_gas_per_player: 2_000_000,
      daily_gas_app: null,
      ops_per_player_per_minute: 5,
      approval_url: null,
      today: { gas: 0, operations: 0, top_players: [] },
    });
    const wrong = await run(['client', 'sponsorship', 'set', ...asOwner(), '--player-gas', '1.5']);
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stderr)).toMatchObject({ success: false });
    const metadata = await run([
      'client',
      'sponsorship',
      'set',
      ...asOwner(),
      '--approval-url',
      'http://169.254.169.254/x',
    ]);
    expect(metadata.code).toBe(1);
    expect(JSON.parse(metadata.stderr)).toMatchObject({ success: false, error: 'invalid_approval_url' });
  });
});
