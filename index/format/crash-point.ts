// Test hook: STRATA_TEST_KILL_AT=<step> makes the process SIGKILL itself when it reaches that named
// step of writing an index, so tests can prove what a crash at exactly that point leaves on disk.
// Steps: 'writing' (some files of the temporary written), 'before-swap' (temporary complete, nothing
// replaced), 'between-renames' (fallback swap only: the old index moved aside, the new one not yet
// in place), 'after-swap' (new index in place, old copy not yet removed). Unset in normal runs.
export type CrashStep = 'writing' | 'before-swap' | 'between-renames' | 'after-swap';

export function crashPoint(step: CrashStep): void {
  if (process.env['STRATA_TEST_KILL_AT'] === step) process.kill(process.pid, 'SIGKILL');
}
