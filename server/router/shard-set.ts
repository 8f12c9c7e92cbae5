// The shards a router fans out to: each shard is one or more replica servers (`strata serve` over
// the same shard index), reached with one pooled, pipelined undici client per replica. A call goes
// to one replica (round robin); if it fails (connection refused, reset, a 5xx) the next replica is
// tried at once, and if it has not answered within the hedge delay the next one is asked as well
// (a hedged request): the first answer wins. Past the per-shard deadline the shard counts as
// missing. A 4xx is the request's fault, not the replica's: it is the answer.
import { Pool } from 'undici';
import { invalidArgument, StrataError, errorMessage } from '../../common/errors.js';
import { packMsgpack, unpackMsgpack } from '../rest/codec.js';

/** The HTTP methods the router sends to shards. */
export type ShardMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export interface ShardSetOptions {
  /** Per-shard deadline, ms: past it the shard is missing from the answer. */
  timeoutMs: number;
  /** Delay before a hedged request to another replica, ms. */
  hedgeMs: number;
  /** The key the shard servers ask for (sent as the api-key header), or null. */
  apiKey?: string | null;
}

export interface ShardAnswer {
  status: number;
  body: unknown;
  /** The shard's Strata error code (its strata-code header), on a failure. */
  code?: string;
}

export class ShardFailure extends Error {
  constructor(
    readonly shard: number,
    readonly reasons: string[],
  ) {
    super(`shard ${shard}: ${reasons.join('; ')}`);
  }
}

/** "http://a:1|http://b:2,http://c:3": shards separated by commas, a shard's replicas by "|". */
export function parseShards(spec: string): string[][] {
  const shards = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => s.split('|').map((u) => u.trim().replace(/\/+$/, '')));
  if (shards.length === 0) throw invalidArgument('--shards', 'give at least one shard URL');
  for (const [i, replicas] of shards.entries()) {
    for (const u of replicas) {
      let url: URL;
      try {
        url = new URL(u);
      } catch {
        throw invalidArgument('--shards', `shard ${i}: ${JSON.stringify(u)} is not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument('--shards', `shard ${i}: ${u} is not http(s)`);
    }
  }
  return shards;
}

interface Replica {
  url: string;
  pool: Pool;
  /** Calls that failed in a row (reset by a success): health and metrics. */
  failures: number;
}

export class ShardSet {
  private readonly shards: Replica[][];
  private readonly next: number[];
  /** Outcomes per shard and replica, for metrics. */
  readonly calls = new Map<string, number>();

  constructor(
    urls: string[][],
    private readonly o: ShardSetOptions,
  ) {
    this.shards = urls.map((replicas) =>
      replicas.map((url) => ({ url, pool: new Pool(url, { connections: 16, pipelining: 4, keepAliveTimeout: 30_000 }), failures: 0 })),
    );
    this.next = urls.map(() => 0);
  }

  get count(): number {
    return this.shards.length;
  }

  replicas(shard: number): readonly string[] {
    return this.shards[shard]!.map((r) => r.url);
  }

  private count_(key: string): void {
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
  }

  private async once(
    r: Replica,
    method: ShardMethod,
    path: string,
    body: unknown,
    signal: AbortSignal,
    headers: Record<string, string> = {},
  ): Promise<ShardAnswer> {
    const res = await r.pool.request({
      method,
      path,
      headers: {
        ...headers,
        accept: 'application/msgpack',
        ...(body !== undefined ? { 'content-type': 'application/msgpack' } : {}),
        ...(this.o.apiKey ? { 'api-key': this.o.apiKey } : {}),
      },
      ...(body !== undefined ? { body: packMsgpack(body) } : {}),
      signal,
    });
    const buf = Buffer.from(await res.body.arrayBuffer());
    const type = String(res.headers['content-type'] ?? '');
    const parsed = type.includes('msgpack') ? unpackMsgpack(buf) : type.includes('json') ? (JSON.parse(buf.toString('utf8')) as unknown) : buf.toString('utf8');
    const code = res.headers['strata-code'];
    return { status: res.statusCode, body: parsed, ...(typeof code === 'string' ? { code } : {}) };
  }

  /**
   * One call to a shard: replicas in round-robin order, the next one on a failure at once or after
   * the hedge delay, the first answer (2xx or 4xx) wins. Rejects with ShardFailure when every
   * replica failed or the deadline passed.
   */
  call(shard: number, method: ShardMethod, path: string, body?: unknown, headers?: Record<string, string>): Promise<ShardAnswer> {
    const replicas = this.shards[shard]!;
    const start = this.next[shard]!;
    this.next[shard] = (start + 1) % replicas.length;
    const ac = new AbortController();
    const reasons: string[] = [];
    return new Promise<ShardAnswer>((resolve, reject) => {
      let launched = 0;
      let failed = 0;
      let settled = 0;
      let done = false;
      let hedge: NodeJS.Timeout | null = null;
      const finish = (f: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        if (hedge) clearTimeout(hedge);
        // Cancel the requests still out: hedged ones, or all of them past the deadline (an abort
        // costs an exception: only when one is). A request left out would also hold close().
        if (launched > settled) ac.abort();
        f();
      };
      const launch = (): void => {
        if (done || launched >= replicas.length) return;
        const r = replicas[(start + launched) % replicas.length]!;
        launched++;
        if (hedge) clearTimeout(hedge);
        if (launched < replicas.length) hedge = setTimeout(launch, this.o.hedgeMs);
        const fail = (why: string): void => {
          if (done) return;
          r.failures++;
          this.count_(`${shard} ${r.url} failed`);
          reasons.push(why);
          failed++;
          if (failed === replicas.length) finish(() => reject(new ShardFailure(shard, reasons)));
          else launch();
        };
        this.once(r, method, path, body, ac.signal, headers).then(
          (a) => {
            settled++;
            // A 5xx is the replica's fault: the next replica is asked, as after a refused connection.
            if (a.status >= 500) return fail(`${r.url} answered ${a.status}`);
            if (done) return;
            r.failures = 0;
            this.count_(`${shard} ${r.url} ok`);
            finish(() => resolve(a));
          },
          (e: unknown) => {
            settled++;
            fail(`${r.url}: ${errorMessage(e)}`);
          },
        );
      };
      const deadline = setTimeout(() => {
        reasons.push(`no answer within ${this.o.timeoutMs} ms`);
        finish(() => reject(new ShardFailure(shard, reasons)));
      }, this.o.timeoutMs);
      launch();
    });
  }

  /**
   * The same call to every replica of a shard, within the per-shard deadline: each replica's answer,
   * or the reason it gave none.
   */
  async replicaAnswers(
    shard: number,
    method: ShardMethod,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Array<{ url: string; answer: ShardAnswer | null; reason: string | null }>> {
    const ac = new AbortController();
    const deadline = setTimeout(() => ac.abort(), this.o.timeoutMs);
    try {
      const replicas = this.shards[shard]!;
      const settled = await Promise.allSettled(replicas.map((r) => this.once(r, method, path, body, ac.signal, headers)));
      return settled.map((a, i) => ({
        url: replicas[i]!.url,
        answer: a.status === 'fulfilled' ? a.value : null,
        reason: a.status === 'rejected' ? (a.reason instanceof Error ? a.reason.message : String(a.reason)) : null,
      }));
    } finally {
      clearTimeout(deadline);
    }
  }

  /** The same call to every replica of a shard; resolves with the replicas that answered 2xx. */
  async everyReplica(shard: number, method: 'GET' | 'POST' | 'PUT', path: string, headers: Record<string, string>): Promise<string[]> {
    const answers = await this.replicaAnswers(shard, method, path, undefined, headers);
    return answers.filter((a) => a.answer !== null && a.answer.status < 300).map((a) => a.url);
  }

  /** The same call to every shard; each settles to its answer or its failure. */
  all(method: ShardMethod, path: string, body?: unknown): Promise<Array<ShardAnswer | ShardFailure>> {
    return Promise.all(
      this.shards.map((_, i) => this.call(i, method, path, body).catch((e: unknown) => (e instanceof ShardFailure ? e : new ShardFailure(i, [String(e)])))),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.flat().map((r) => r.pool.close()));
  }
}

/** The error a router answers when a shard is missing and the policy is to fail. */
export function shardsUnreachable(missing: ShardFailure[]): StrataError {
  return new StrataError(
    'STRATA_UNREACHABLE',
    `shard${missing.length > 1 ? 's' : ''} ${missing.map((m) => m.shard).join(', ')} did not answer (${missing
      .map((m) => m.message)
      .join(' | ')
      .slice(0, 400)}); start the router with --partial allow to answer from the shards that do`,
    { shards: missing.map((m) => m.shard).join(',') },
  );
}
