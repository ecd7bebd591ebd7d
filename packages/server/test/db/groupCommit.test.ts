import { describe, expect, it } from 'vitest';
import { GroupCommit, type GroupCommitSteps } from '../../src/db/groupCommit.js';

/** Steps that record every transaction they were asked for; `fail` names inputs whose write throws. */
function recorder(fail: Set<number> = new Set(), ready = () => true) {
  const transactions: number[][] = [];
  const steps: GroupCommitSteps<number, string> = {
    all: (inputs) => {
      if (inputs.some((i) => fail.has(i))) throw new Error('batch rolled back');
      transactions.push([...inputs]);
      return inputs.map((i) => `done ${i}`);
    },
    one: (input) => {
      if (fail.has(input)) throw new Error(`input ${input} refused`);
      transactions.push([input]);
      return `alone ${input}`;
    },
    ready,
  };
  return { steps, transactions };
}

describe('GroupCommit', () => {
  it('commits the writes submitted in one turn of the event loop in one transaction', async () => {
    const { steps, transactions } = recorder();
    const group = new GroupCommit(steps);
    const first = await Promise.all([1, 2, 3].map((i) => group.submit(i)));
    const second = await Promise.all([4, 5].map((i) => group.submit(i)));
    expect(first).toEqual(['done 1', 'done 2', 'done 3']);
    expect(second).toEqual(['done 4', 'done 5']);
    expect(transactions).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect({ batches: group.batches, inputs: group.inputs }).toEqual({ batches: 2, inputs: 5 });
  });

  it('answers no caller before its transaction ran', async () => {
    const { steps, transactions } = recorder();
    const group = new GroupCommit(steps);
    let answered = false;
    const pending = group.submit(1).then(() => (answered = true));
    await Promise.resolve();
    expect(answered).toBe(false);
    expect(transactions).toEqual([]);
    await pending;
    expect(transactions).toEqual([[1]]);
  });

  it('caps a transaction at maxBatch inputs', async () => {
    const { steps, transactions } = recorder();
    const group = new GroupCommit(steps, 2);
    await Promise.all([1, 2, 3, 4, 5].map((i) => group.submit(i)));
    expect(transactions).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('retries each input alone when the batch fails, so one bad input fails only its own caller', async () => {
    const { steps, transactions } = recorder(new Set([2]));
    const group = new GroupCommit(steps);
    const outcomes = await Promise.allSettled([1, 2, 3].map((i) => group.submit(i)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'alone 1' },
      { status: 'rejected', reason: new Error('input 2 refused') },
      { status: 'fulfilled', value: 'alone 3' },
    ]);
    expect(transactions).toEqual([[1], [3]]);
  });

  it('passes a lone input’s error through', async () => {
    const { steps } = recorder(new Set([7]));
    await expect(new GroupCommit(steps).submit(7)).rejects.toThrow('batch rolled back');
  });

  it('sends each input to its own commit while the batch may not run (the connection is held)', async () => {
    const { steps, transactions } = recorder(new Set(), () => false);
    const group = new GroupCommit(steps);
    expect(await Promise.all([1, 2].map((i) => group.submit(i)))).toEqual(['alone 1', 'alone 2']);
    expect(transactions).toEqual([[1], [2]]);
  });
});
