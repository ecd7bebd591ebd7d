/**
 * The figures table of `npm run bench:all` (bench/figures.ts): summaries in, target checks and
 * markdown out. No benchmark runs here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  evaluateRows,
  FIGURES_END,
  FIGURES_START,
  meetsTarget,
  renderFiguresTable,
  replaceFiguresBlock,
  ROWS,
  spreadOf,
} from '../../../../bench/figures.js';

const context = {
  date: '2026-11-23',
  machine: { cores: 2, cpu: 'AMD EPYC 7B13', node: 'v20.20.2', memory_gib: 24 },
  command: 'npm run bench:all',
  quick: false,
};

const row = (results: ReturnType<typeof evaluateRows>, id: string) => {
  const found = results.find((r) => r.definition.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
};

describe('bench:all figures', () => {
  it('checks issue 14 targets in both directions, inclusive of the bound', () => {
    expect(meetsTarget(0.7, { comparison: '≥', value: 0.7 })).toBe(true);
    expect(meetsTarget(0.69, { comparison: '≥', value: 0.7 })).toBe(false);
    expect(meetsTarget(160_000, { comparison: '≤', value: 160_000 })).toBe(true);
    expect(meetsTarget(187_112, { comparison: '≤', value: 160_000 })).toBe(false);
  });

  it('derives each figure from its benchmark summary and checks the target', () => {
    const results = evaluateRows({
      http: {
        runs: {
          a: { rps: 78_522, rounds: [70_000, 78_522, 80_000], cpu_us_per_request: [15.1, 17.3, null] },
          b: { rps: 42_000, rounds: [40_000, 42_000, 44_000], cpu_us_per_request: [30.5, 34.0, 40.2] },
          c: { rps: 3_728, rounds: [3_700] },
          d: { rps: 2_024, rounds: [2_000] },
        },
      },
      gas: {
        rows: {
          first: { dauth: 187_112, reference: 427_165 },
          later: { dauth: 96_899, reference: 107_852 },
        },
      },
      pin: {
        share_of_ceiling: 0.66,
        verifications_per_s: 64.4,
        ceiling_per_s: 97.6,
        verify_failures: 0,
        validate_p99_ratio: 3.21,
        server_cpu_ms_per_verification: 28.1,
        pbkdf2_ms: 26.0, // wall time on a busy machine: not what the figure subtracts
        pbkdf2_cpu_ms: 20.5,
        event_loop_cpu_ms_per_verification: 7.6,
      },
      backend: { round_trips_per_second: 2_150, p99_ms: 40, errors: 0, server_cpu_ms_per_round_trip: 0.45 },
    });

    const validate = row(results, 'validate-vs-bare');
    expect(validate.figure?.value).toBeCloseTo(42_000 / 78_522, 6);
    expect(validate.status).toBe('missed'); // 0.53 < 0.8
    // Round-by-round ratios: 40000/70000 = 0.57, 42000/78522 = 0.53, 44000/80000 = 0.55.
    expect(validate.figure?.spread).toBe('0.53–0.57 over 3 rounds');
    // Median CPU per request of each server (a null round is skipped: 15.1 and 17.3 give 16.2).
    expect(validate.figure?.text).toBe(
      '0.53× (validate 42,000 vs bare 78,522 req/s; server CPU 34.0 vs 16.2 µs/request)',
    );

    expect(row(results, 'exchange-vs-oidc').status).toBe('missed'); // 1.84 < 3
    expect(row(results, 'exchange-vs-oidc').figure?.text).toBe(
      '1.84× (dauth 3,728 vs oidc-provider 2,024 req/s)',
    );
    expect(row(results, 'gas-first').figure?.value).toBe(187_112);
    expect(row(results, 'gas-first').status).toBe('missed');
    expect(row(results, 'gas-later').figure?.value).toBeCloseTo(0.898, 3);
    expect(row(results, 'gas-later').status).toBe('missed');

    const besides = row(results, 'pin-cpu-besides-pbkdf2');
    expect(besides.figure?.value).toBe(7.6);
    expect(besides.figure?.text).toBe('7.60 ms (whole process 28.10 ms, PBKDF2 alone 20.50 ms)');
    expect(besides.status).toBe('missed');
    expect(row(results, 'pin-share').status).toBe('missed');
    expect(row(results, 'pin-share').figure?.text).toBe('0.66 (64.4 of 97.6/s)');
    expect(row(results, 'pin-p99').status).toBe('missed');

    expect(row(results, 'backend-rate').status).toBe('met');
    expect(row(results, 'backend-cpu').status).toBe('met');

    // No summary (or no such run in it): not run, never met.
    expect(row(results, 'backend-rate-pg').status).toBe('not run');
    expect(row(results, 'openid-exchange-vs-oidc').status).toBe('not run');
    expect(row(results, 'content-consumptions').status).toBe('not run');
  });

  it('reads the content figures with the server CPU beside the rates', () => {
    const results = evaluateRows({
      content: {
        consumption: {
          consumptions_per_second: 1_170,
          records_per_transaction: 92.4,
          errors: 0,
          server_cpu_ms_per_op: 0.48,
        },
        balance_adex_vs_bare: 0.6,
        balance_rounds: [
          { ratio: 0.5, cpu_us: { bare: 30, balance: 80 } },
          { ratio: 0.6, cpu_us: { bare: 32, balance: 78 } },
          { ratio: 0.7, cpu_us: { bare: 40, balance: 90 } },
        ],
      },
    });
    const consumptions = row(results, 'content-consumptions');
    expect(consumptions.figure?.text).toBe('1,170/s at 92.4 records/tx, server CPU 0.48 ms each');
    expect(consumptions.status).toBe('missed');
    expect(row(results, 'content-records-per-tx').status).toBe('met');
    const balance = row(results, 'balance-vs-bare');
    expect(balance.figure?.text).toBe('0.60× (median round; server CPU 80 vs 32 µs/request)');
    expect(balance.figure?.spread).toBe('0.50–0.70 over 3 rounds');
    expect(balance.status).toBe('missed');
  });

  it('checks issue 43 block-time targets: the most bundles in flight beside one, consumptions at 2-second blocks', () => {
    const results = evaluateRows({
      'ops-block-2': {
        modes: [
          { name: 'bundled, 1 in flight', ops_per_second: 45.7, round_rates: [46, 45.4, 45.7] },
          {
            name: 'bundled, 8 in flight',
            ops_per_second: 187.6,
            round_rates: [205.4, 157.8, 209.2],
            gas_asked_per_used_all: 1.249,
          },
        ],
      },
      'content-block-2': {
        consumption: {
          consumptions_per_second: 563,
          records_per_transaction: 358,
          errors: 0,
          server_cpu_ms_per_op: 0.324,
        },
      },
    });
    const transfers = row(results, 'ops-block-2');
    expect(transfers.figure?.value).toBe(187.6);
    expect(transfers.figure?.text).toBe('188/s with 8 in flight (46 with 1); gas asked ÷ used 1.25');
    expect(transfers.figure?.spread).toBe('158–209 over 3 rounds');
    expect(transfers.status).toBe('met');
    const consumptions = row(results, 'content-consumptions-block-2');
    expect(consumptions.figure?.text).toBe('563/s at 358.0 records/tx, server CPU 0.32 ms each');
    expect(consumptions.status).toBe('missed');
    // The embedded-chain row reads its own run's summary, not the 2-second one.
    expect(row(results, 'content-consumptions').status).toBe('not run');
  });

  it('checks issue 43 targets: passkeys, the MFA second step, webhooks, session gas, the players directory', () => {
    const results = evaluateRows({
      passkeys: {
        results: [
          { name: 'passkey', sign_ins_per_second: 18.9, server_cpu_ms_per_sign_in: 7.5, failed: 0 },
          { name: 'password', sign_ins_per_second: 0.3, server_cpu_ms_per_sign_in: 619, failed: 0 },
        ],
      },
      mfa: {
        results: [
          { name: 'password (no TOTP)', server_cpu_ms_per_call: 348.5, failed: 0 },
          { name: 'password, mfa_required', server_cpu_ms_per_call: 345, failed: 0 },
          { name: 'login/mfa, TOTP code', server_cpu_ms_per_call: 2.5, failed: 0 },
          { name: 'login/mfa, recovery code', server_cpu_ms_per_call: 1.8, failed: 0 },
        ],
      },
      'webhooks-pg': {
        burst_events: 1000,
        burst_delivered_per_second: 1250.5,
        steady_rate_per_second: 100,
        steady_events: 1000,
        steady_delivered: 1000,
        steady_p50_ms: 5.8,
        steady_p99_ms: 612.4,
        rejected_by_receiver: 0,
      },
      gas: { rows: {}, sessions: { owner_later: 102_501, session_first: 112_075, session_later: 112_087 } },
      players: {
        players: 1_000_000,
        results: {
          uuid: { p50_ms: 0.99, p99_ms: 3.84 },
          address: { p50_ms: 1.18, p99_ms: 5.61 },
          email: { p50_ms: 1.18, p99_ms: 4.49 },
          page_of_50: { p50_ms: 1.75, p99_ms: 93.92 }, // not a lookup: not in the figure
        },
      },
    });
    const passkeys = row(results, 'passkeys-vs-password');
    expect(passkeys.figure?.value).toBeCloseTo(63, 6);
    expect(passkeys.figure?.text).toBe(
      '63.0× (passkey 18.9 vs password 0.3 sign-ins/s; server CPU 7.5 vs 619.0 ms each)',
    );
    expect(passkeys.status).toBe('met');

    const mfa = row(results, 'mfa-second-step-cpu');
    expect(mfa.figure?.value).toBe(2.5); // the costlier second step
    expect(mfa.figure?.text).toBe('2.50 ms (TOTP 2.50, recovery code 1.80; a password sign-in 348.5)');
    expect(mfa.status).toBe('missed');

    expect(row(results, 'webhooks-burst-pg').figure?.text).toBe('1,251/s (1,000 events)');
    expect(row(results, 'webhooks-burst-pg').status).toBe('met');
    const p99 = row(results, 'webhooks-p99-pg');
    expect(p99.figure?.text).toBe('612.4 ms (p50 5.8 ms; 1,000 of 1,000 delivered at 100/s)');
    expect(p99.status).toBe('missed');

    const session = row(results, 'gas-session');
    expect(session.figure?.value).toBeCloseTo(112_087 / 102_501, 10);
    expect(session.figure?.text).toBe('1.094× (112,087 vs owner 102,501 gas)');
    expect(session.status).toBe('met');

    const players = row(results, 'players-p99-pg');
    expect(players.figure?.value).toBe(5.61);
    expect(players.figure?.text).toBe(
      '5.61 ms over 1,000,000 players (user_id 3.84, address 5.61, e-mail 4.49 ms, end to end)',
    );
    expect(players.status).toBe('met');
  });

  it('takes the MFA second step net of the idle server where the run measured it, the gross one beside it', () => {
    const results = evaluateRows({
      mfa: {
        results: [
          { name: 'password (no TOTP)', server_cpu_ms_per_call: 290.4, failed: 0 },
          {
            name: 'login/mfa, TOTP code',
            server_cpu_ms_per_call: 1.06,
            server_cpu_ms_per_call_net: 0.97,
            failed: 0,
          },
          {
            name: 'login/mfa, recovery code',
            server_cpu_ms_per_call: 0.95,
            server_cpu_ms_per_call_net: 0.9,
            failed: 0,
          },
        ],
      },
    });
    const mfa = row(results, 'mfa-second-step-cpu');
    expect(mfa.figure?.value).toBe(0.97);
    expect(mfa.figure?.text).toBe(
      '0.97 ms (TOTP 0.97, recovery code 0.90, net of the idle server; gross 1.06; a password sign-in 290.4)',
    );
    expect(mfa.status).toBe('met');
  });

  it('misses an issue 43 row whose run failed calls or lost deliveries, whatever its figure', () => {
    const results = evaluateRows({
      passkeys: {
        results: [
          { name: 'passkey', sign_ins_per_second: 50, failed: 2 },
          { name: 'password', sign_ins_per_second: 1, failed: 0 },
        ],
      },
      mfa: {
        results: [
          { name: 'login/mfa, TOTP code', server_cpu_ms_per_call: 0.5, failed: 1 },
          { name: 'login/mfa, recovery code', server_cpu_ms_per_call: 0.4, failed: 0 },
        ],
      },
      'webhooks-pg': {
        burst_delivered_per_second: 5000,
        rejected_by_receiver: 0,
        steady_rate_per_second: 100,
        steady_events: 1000,
        steady_delivered: 990,
        steady_p99_ms: 8,
      },
    });
    expect(row(results, 'passkeys-vs-password').status).toBe('missed');
    expect(row(results, 'passkeys-vs-password').figure?.text).toContain('2 failed');
    expect(row(results, 'mfa-second-step-cpu').status).toBe('missed');
    expect(row(results, 'mfa-second-step-cpu').figure?.text).toContain('1 failed');
    expect(row(results, 'webhooks-burst-pg').status).toBe('met');
    expect(row(results, 'webhooks-p99-pg').status).toBe('missed');
    expect(row(results, 'webhooks-p99-pg').figure?.text).toContain('990 of 1,000 delivered');
    // No password sign-in in the run: no ratio, so not run rather than infinitely met.
    const noPassword = evaluateRows({
      passkeys: {
        results: [
          { name: 'passkey', sign_ins_per_second: 50 },
          { name: 'password', sign_ins_per_second: 0 },
        ],
      },
    });
    expect(row(noPassword, 'passkeys-vs-password').status).toBe('not run');
  });

  it('counts a run with errors or failed verifications as missed, whatever its rate', () => {
    const results = evaluateRows({
      backend: { round_trips_per_second: 5_000, errors: 3 },
      pin: { share_of_ceiling: 0.95, verify_failures: 2 },
    });
    expect(row(results, 'backend-rate').status).toBe('missed');
    expect(row(results, 'backend-rate').figure?.text).toContain('3 errors');
    expect(row(results, 'pin-share').status).toBe('missed');
  });

  it('tolerates malformed summaries (the row is not run)', () => {
    const results = evaluateRows({ http: { runs: { b: { rps: 'fast' } } }, gas: null, pin: 'oops' });
    expect(results.every((r) => r.status === 'not run')).toBe(true);
  });

  it('renders the table: machine line, counts, one row per target, missed in bold', () => {
    const results = evaluateRows({
      backend: { round_trips_per_second: 560, p99_ms: 66, errors: 0, server_cpu_ms_per_round_trip: 1.83 },
    });
    const markdown = renderFiguresTable(results, { ...context, loadAverage: [0.4, 0.3, 0.2] });
    const lines = markdown.split('\n');
    expect(lines[0]).toBe(
      'Generated by `npm run bench:all` on 2026-11-23: 2 cores (AMD EPYC 7B13), 24 GiB, Node v20.20.2, load average 0.4 0.3 0.2 at the start.',
    );
    expect(markdown).toContain(`0 of ${ROWS.length} targets met, 2 missed, ${ROWS.length - 2} not run.`);
    expect(markdown).toContain('| Area | Command | Figure | Spread | Target | Status | Detail |');
    expect(markdown).toContain(
      '| Backend round trips/s (SQLite) | `npm run bench:backend` | 560 round trips/s, p99 66 ms | — | ≥ 2,000/s | **missed** | [performance-backend.md](performance-backend.md) |',
    );
    expect(markdown).toContain(
      '| Backend: server CPU per round trip (SQLite) | `npm run bench:backend` | 1.83 ms | — | ≤ 0.5 ms | **missed** | [performance-backend.md](performance-backend.md) |',
    );
    expect(markdown).toContain(
      '| Gas: first operation (deploy + write) | `npm run bench:gas` | — | — | ≤ 160,000 gas | not run |',
    );
    // Header, separator, one line per row.
    expect(lines.filter((l) => l.startsWith('| ')).length).toBe(ROWS.length + 2);
    expect(markdown).not.toContain('Smoke run');
  });

  it('marks a quick run as a smoke run', () => {
    expect(renderFiguresTable([], { ...context, quick: true })).toContain('Smoke run (`--quick`)');
  });

  it('replaces only the block between the markers, and refuses a document without them', () => {
    const document = `# Performance\n\nintro\n\n${FIGURES_START}\n\nold table\n\n${FIGURES_END}\n\nafter\n`;
    const updated = replaceFiguresBlock(document, 'new table');
    expect(updated).toBe(
      `# Performance\n\nintro\n\n${FIGURES_START}\n\nnew table\n\n${FIGURES_END}\n\nafter\n`,
    );
    expect(replaceFiguresBlock(updated, 'new table')).toBe(updated);
    expect(() => replaceFiguresBlock('# Performance\n', 'x')).toThrow(/markers are missing/);
  });

  it('spreads are min–max over at least two rounds', () => {
    expect(spreadOf([0.8, 0.6, 0.7], 2)).toBe('0.60–0.80 over 3 rounds');
    expect(spreadOf([0.8], 2)).toBeUndefined();
    expect(spreadOf(undefined, 2)).toBeUndefined();
  });

  it('docs/performance.md carries the markers bench:all writes between, once each', () => {
    const document = readFileSync(new URL('../../../../docs/performance.md', import.meta.url), 'utf8');
    expect(document.split(FIGURES_START)).toHaveLength(2);
    expect(document.split(FIGURES_END)).toHaveLength(2);
    expect(replaceFiguresBlock(document, 'table')).toContain(`${FIGURES_START}\n\ntable\n\n${FIGURES_END}`);
  });

  it('names the rate every core gave deriving at once beside the PIN share, which stays on the ceiling', () => {
    const results = evaluateRows({
      pin: {
        share_of_ceiling: 0.74,
        verifications_per_s: 107.7,
        ceiling_per_s: 145.4,
        parallel_pbkdf2_per_s: 118.2,
        verify_failures: 0,
      },
    });
    const share = row(results, 'pin-share');
    expect(share.figure?.value).toBe(0.74);
    expect(share.figure?.text).toBe('0.74 (107.7 of 145.4/s; 118.2/s with every core deriving at once)');
    expect(share.status).toBe('missed');
  });

  it("puts dauth's /healthz beside balance_adex and the bare route when the rounds measured it", () => {
    const results = evaluateRows({
      content: {
        balance_adex_vs_bare: 0.59,
        balance_rounds: [
          { ratio: 0.69, cpu_us: { bare: 21, balance: 36, healthz: 31 } },
          { ratio: 0.56, cpu_us: { bare: 19, balance: 38, healthz: 32 } },
          { ratio: 0.59, cpu_us: { bare: 25, balance: 49, healthz: 49 } },
        ],
      },
    });
    const balance = row(results, 'balance-vs-bare');
    expect(balance.figure?.text).toBe(
      "0.59× (median round; server CPU 38 vs 21, dauth's /healthz 32 µs/request)",
    );
    expect(balance.status).toBe('missed');
  });
});
