/**
 * The machine-readable side of every benchmark: when `BENCH_JSON=<file>` is set, a benchmark writes
 * its figures there as one JSON object (beside its human output), which `npm run bench:all` reads.
 */
import fs from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  cores: number;
  cpu: string;
  node: string;
  memory_gib: number;
}

export function machineInfo(): MachineInfo {
  return {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    node: process.version,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
  };
}

/** Writes `summary` (plus the machine and the load average) to `$BENCH_JSON` when it is set. */
export function writeBenchSummary(summary: Record<string, unknown>): void {
  const file = process.env.BENCH_JSON;
  if (!file) return;
  const record = {
    finished_at: new Date().toISOString(),
    machine: machineInfo(),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
    ...summary,
  };
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
}
