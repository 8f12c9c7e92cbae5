// Progress for long phases: a bar with rate and ETA on a terminal, plain periodic lines otherwise
// (CI logs, pipes), so that neither gets the other's output.
import cliProgress from 'cli-progress';

export interface PhaseProgress {
  update(phase: string, done: number, total: number): void;
  stop(): void;
}

export function phaseProgress(stream: NodeJS.WriteStream = process.stderr, intervalMs = 5000): PhaseProgress {
  if (stream.isTTY) {
    let bar: cliProgress.SingleBar | null = null;
    let current = '';
    let startedAt = Date.now();
    return {
      update(phase, done, total) {
        if (phase !== current) {
          bar?.stop();
          current = phase;
          startedAt = Date.now();
          bar = new cliProgress.SingleBar(
            {
              stream,
              format: `${phase.padEnd(8)} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`,
              etaBuffer: 50,
              hideCursor: true,
            },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, 0, { rate: '0' });
        }
        const el = (Date.now() - startedAt) / 1000;
        bar?.update(done, { rate: el > 0 ? Math.round(done / el).toString() : '0' });
      },
      stop() {
        bar?.stop();
      },
    };
  }
  let last = 0;
  let current = '';
  let started = Date.now();
  return {
    update(phase, done, total) {
      const now = Date.now();
      if (phase !== current) {
        current = phase;
        started = now;
        last = 0;
      }
      if (done < total && now - last < intervalMs) return;
      last = now;
      const s = (now - started) / 1000;
      const rate = s > 0 ? done / s : 0;
      const eta = rate > 0 ? (total - done) / rate : 0;
      stream.write(`${phase}: ${done}/${total} (${total > 0 ? ((100 * done) / total).toFixed(1) : '100'}%) ${Math.round(rate)}/s eta ${eta.toFixed(0)}s\n`);
    },
    stop() {},
  };
}
