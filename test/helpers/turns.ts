// How many turns of the event loop other work got while a piece of work ran: a tick re-armed with
// setImmediate counts them, so work done in one synchronous step counts at most one.

/** Runs `work`, counting the turns the event loop took meanwhile. */
export async function turnsWhile<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let ticking = true;
  const tick = (): void => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await work();
    return { value, turns };
  } finally {
    ticking = false;
  }
}
