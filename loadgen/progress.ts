// The live view of a run on stderr: one line rewritten in place on a terminal, plain lines every few
// seconds otherwise (CI logs, pipes), so neither gets the other's control characters.

export interface StepKey {
  index: number;
  of: number;
  ef: number;
  concurrency: number;
  rate: number | null;
}

export interface Snapshot {
  elapsedS: number;
  sent: number;
  ok: number;
  failed: number;
  qps: number;
  p99Ms: number;
}

export interface ProgressSink {
  step(key: StepKey, phase: 'warmup' | 'measure'): void;
  tick(key: StepKey, s: Snapshot): void;
  done(key: StepKey, line: string): void;
  stop(): void;
}

const describe = (k: StepKey): string => `step ${k.index + 1}/${k.of} ef ${k.ef} c ${k.concurrency}${k.rate !== null ? ` rate ${k.rate}/s` : ''}`;
const numbers = (s: Snapshot): string =>
  `${s.elapsedS.toFixed(1)}s sent ${s.sent} ok ${s.ok} err ${s.failed} qps ${s.qps.toFixed(0)} p99 ${s.p99Ms.toFixed(2)} ms`;

export function progressSink(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }, plainEveryMs = 5000): ProgressSink {
  if (stream.isTTY) {
    const clear = (): void => void stream.write('\r\x1b[2K');
    return {
      step(k, phase) {
        clear();
        stream.write(`${describe(k)}: ${phase}…`);
      },
      tick(k, s) {
        clear();
        stream.write(`${describe(k)}: ${numbers(s)}`.slice(0, Math.max(20, (stream.columns ?? 120) - 1)));
      },
      done(_k, line) {
        clear();
        stream.write(line + '\n');
      },
      stop: clear,
    };
  }
  let last = 0;
  return {
    step(_k, phase) {
      if (phase === 'measure') last = Date.now();
    },
    tick(k, s) {
      if (Date.now() - last < plainEveryMs) return;
      last = Date.now();
      stream.write(`${describe(k)}: ${numbers(s)}\n`);
    },
    done(_k, line) {
      stream.write(line + '\n');
    },
    stop() {},
  };
}

export const silentProgress: ProgressSink = { step() {}, tick() {}, done() {}, stop() {} };
