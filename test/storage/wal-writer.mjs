// Child process for the WAL crash test: appends records of known content as fast as the log takes
// them (many in flight, so group commit is exercised), and prints "ack <lsn> <seed>" on stdout
// only after each append resolved, i.e. once the record is durable. The parent kills it with
// SIGKILL at a random moment, or runs it under a file-size limit until the disk is "full". Runs the compiled module (dist/), as the CLI does.
import { WriteAheadLog } from '../../dist/storage/wal.js';

const [file, startSeed] = process.argv.slice(2);
const { wal } = await WriteAheadLog.open(file);
let seed = Number(startSeed);
const payloadOf = (s) => {
  const n = 1 + (s % 3000);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (s * 31 + i * 7) & 255;
  return b;
};
process.stdout.write('ready\n');
for (;;) {
  const batch = [];
  for (let i = 0; i < 16; i++) {
    const s = seed++;
    batch.push(wal.append(s % 251, payloadOf(s)).then((lsn) => process.stdout.write(`ack ${lsn} ${s}\n`)));
  }
  try {
    await Promise.all(batch);
  } catch (e) {
    // A storage failure (the full-disk test runs this under a file-size limit): say so and stop.
    process.stdout.write(`error ${e.code} ${e.details?.errno}\n`);
    process.exit(0);
  }
}
