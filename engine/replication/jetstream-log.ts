// The shared write log of a shard's replicas, kept by NATS JetStream: one stream per shard, one
// subject per collection in it. Replicas publish their writes there and apply what an ordered
// consumer delivers back, so every replica applies the same writes in the same order; JetStream,
// not Strata, keeps the log durable and (with stream replicas) replicated.
import { type ConsumerMessages, DeliverPolicy, type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { StrataError } from '../../common/errors.js';
import type { SharedLog } from '../../storage/live-store.js';

export interface WriteLogOptions {
  /** NATS server URLs, comma-separated (nats://host:4222). */
  servers: string;
  /** The shard's stream: its collections' subjects are `<stream>.<collection key>`. */
  stream: string;
  /** Copies JetStream keeps of a stream it creates (its own Raft replication; 1 on a single server). */
  replicas?: number;
}

/** One NATS connection per server process; a JetStreamLog per collection over it. */
export class WriteLogService {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly stream: string,
  ) {}

  /** Connects and makes sure the shard's stream exists (file storage: it outlives the server). */
  static async open(o: WriteLogOptions): Promise<WriteLogService> {
    let nc: NatsConnection;
    try {
      nc = await connect({ servers: o.servers.split(','), name: `strata ${o.stream}`, maxReconnectAttempts: -1 });
    } catch (e) {
      throw new StrataError('STRATA_WRITE_LOG', `cannot reach the write log at ${o.servers}: ${(e as Error).message}`, { servers: o.servers }, { cause: e });
    }
    const jsm = await jetstreamManager(nc);
    try {
      await jsm.streams.info(o.stream);
    } catch {
      // Created by the first replica up; a concurrent creation of the same config succeeds as well.
      await jsm.streams.add({ name: o.stream, subjects: [`${o.stream}.>`], num_replicas: o.replicas ?? 1 });
    }
    return new WriteLogService(nc, jetstream(nc), jsm, o.stream);
  }

  /** The log of one collection (its subject: a hex key, since collection names may hold any character). */
  logOf(collection: string): SharedLog {
    return new JetStreamLog(this.js, this.jsm, this.stream, `${this.stream}.${Buffer.from(collection, 'utf8').toString('hex')}`);
  }

  close(): Promise<void> {
    return this.nc.drain();
  }
}

class JetStreamLog implements SharedLog {
  private messages: ConsumerMessages | null = null;
  private closed = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly subject: string,
  ) {}

  async last(): Promise<number> {
    try {
      const m = await this.jsm.streams.getMessage(this.stream, { last_by_subj: this.subject });
      return m?.seq ?? 0;
    } catch (e) {
      // No message on the subject yet is an answer (0), not a failure.
      if (/no message found/i.test((e as Error).message)) return 0;
      throw new StrataError(
        'STRATA_WRITE_LOG',
        `cannot read the write log (stream ${this.stream}): ${(e as Error).message}`,
        { stream: this.stream },
        { cause: e },
      );
    }
  }

  async publish(type: number, bytes: Uint8Array, writeId?: string): Promise<number> {
    // One byte of record type, then the record (live-store.ts).
    const data = new Uint8Array(1 + bytes.length);
    data[0] = type;
    data.set(bytes, 1);
    try {
      // JetStream drops a message whose id it stored within its duplicate window (2 minutes by
      // default) and acknowledges the first one's sequence: a retried write is applied once.
      const ack = await this.js.publish(this.subject, data, writeId !== undefined ? { msgID: writeId } : undefined);
      return ack.seq;
    } catch (e) {
      throw new StrataError(
        'STRATA_WRITE_LOG',
        `the write log (stream ${this.stream}) did not store the write: ${(e as Error).message}`,
        { stream: this.stream },
        { cause: e },
      );
    }
  }

  follow(from: number, deliver: (type: number, bytes: Uint8Array, seq: number) => void): void {
    void this.run(from, deliver);
  }

  private async run(from: number, deliver: (type: number, bytes: Uint8Array, seq: number) => void): Promise<void> {
    try {
      await this.consume(from, deliver);
    } catch (e) {
      // The replica stops applying (its writes then time out with STRATA_WRITE_LOG) rather than skip
      // a record; a restart resumes after the last one it applied.
      if (!this.closed) process.emitWarning(`write log ${this.subject}: stopped following: ${(e as Error).message}`);
    }
  }

  private async consume(from: number, deliver: (type: number, bytes: Uint8Array, seq: number) => void): Promise<void> {
    // An ordered consumer: JetStream delivers in sequence and recreates it past a gap or a reconnect.
    const consumer = await this.js.consumers.get(this.stream, {
      filter_subjects: this.subject,
      ...(from <= 1 ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from }),
    });
    if (this.closed) return;
    this.messages = await consumer.consume();
    for await (const m of this.messages) deliver(m.data[0]!, m.data.subarray(1), m.seq);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.messages?.close();
  }
}
