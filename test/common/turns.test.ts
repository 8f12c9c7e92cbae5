// Work written as a generator: over turns, a turn of the event loop at each yield, null once what it
// reads has moved, the signal's reason once aborted, and the generator closed whenever it ends early;
// in one turn, run to its end.
import { describe, expect, it } from 'vitest';
import { stepsInOneTurn, stepsInTurns } from '../../common/turns.js';

/** Three steps; counts the steps taken and whether its `finally` ran. */
function counted(log: { steps: number; closed: boolean }): Generator<void, string, void> {
  return (function* () {
    try {
      for (let i = 0; i < 3; i++) {
        log.steps++;
        yield;
      }
      return 'done';
    } finally {
      log.closed = true;
    }
  })();
}

describe('steps over turns', () => {
  it('gives the event loop a turn at each yield and answers at the end', async () => {
    const log = { steps: 0, closed: false };
    let turns = 0;
    const tick = (): void => {
      turns++;
      if (turns < 10) setImmediate(tick);
    };
    setImmediate(tick);
    expect(await stepsInTurns(counted(log), () => false)).toBe('done');
    expect(log).toEqual({ steps: 3, closed: true });
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('answers null once what it reads has moved, closing the generator', async () => {
    const log = { steps: 0, closed: false };
    expect(await stepsInTurns(counted(log), () => true)).toBeNull();
    expect(log).toEqual({ steps: 1, closed: true });
  });

  it('ends with the signal’s reason between turns, closing the generator', async () => {
    const log = { steps: 0, closed: false };
    const ctl = new AbortController();
    ctl.abort(new Error('gone'));
    await expect(stepsInTurns(counted(log), () => false, ctl.signal)).rejects.toThrow('gone');
    expect(log).toEqual({ steps: 1, closed: true });
  });

  it('runs to the end in one turn', () => {
    const log = { steps: 0, closed: false };
    expect(stepsInOneTurn(counted(log))).toBe('done');
    expect(log).toEqual({ steps: 3, closed: true });
  });
});
