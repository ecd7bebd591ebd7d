import { describe, expect, it } from 'vitest';
import { AnsweringWorker } from '../../src/workers/answeringWorker.js';

/** A real worker thread: doubles `n`, answers an error for a negative one, holds `hold` ms first, exits on `crash`. */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.crash) process.exit(1);
  const answer = () =>
    m.n < 0 ? parentPort.postMessage({ id: m.id, error: 'negative ' + m.n }) : parentPort.postMessage({ id: m.id, value: m.n * 2 });
  if (m.hold) setTimeout(answer, m.hold);
  else answer();
});
`;

type Message = { n: number; hold?: number };

function doubler(onDeath?: (err: Error) => void): AnsweringWorker<Message, number> {
  return new AnsweringWorker<Message, number>({ source: SOURCE, workerData: null, name: 'doubler', onDeath });
}

describe('AnsweringWorker', () => {
  it('answers each request by its id, out of order too, and names the worker in an answered error', async () => {
    const worker = doubler();
    const slow = worker.request({ n: 1, hold: 50 });
    const fast = worker.request({ n: 2 });
    expect(worker.pending).toBe(2);
    expect(await fast).toBe(4);
    expect(await slow).toBe(2);
    await expect(worker.request({ n: -3 })).rejects.toThrow('doubler failed: negative -3');
    expect(worker.pending).toBe(0);
    await worker.terminate(new Error('done'));
  });

  it('fails every request of a thread that dies, tells its owner once, and refuses later requests', async () => {
    const deaths: Error[] = [];
    const worker = doubler((err) => deaths.push(err));
    const held = worker.request({ n: 5, hold: 10_000 });
    await worker.crashForTest();
    await expect(held).rejects.toThrow('doubler exited (code 1)');
    expect(deaths.map((e) => e.message)).toEqual(['doubler exited (code 1)']);
    expect(worker.dead).toBe(true);
    expect(worker.pending).toBe(0);
    await expect(worker.request({ n: 1 })).rejects.toThrow('doubler exited (code 1)');
  });

  it('terminates: pending requests fail with the given reason, and the owner is not told to replace it', async () => {
    const deaths: Error[] = [];
    const worker = doubler((err) => deaths.push(err));
    const held = worker.request({ n: 5, hold: 10_000 });
    await worker.terminate(new Error('closed by its owner'));
    await expect(held).rejects.toThrow('closed by its owner');
    await expect(worker.request({ n: 1 })).rejects.toThrow('closed by its owner');
    expect(deaths).toEqual([]);
  });
});
