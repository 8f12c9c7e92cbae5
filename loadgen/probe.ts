// Before any load: is the endpoint up, does the collection exist, do the dimensions match? Each
// failure is a clear error here rather than a step full of 404s or 400s. The answer also tells the
// distance (for recall) and what the server says about the collection's tiers (for the report).
import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';
import { collectionMissing, endpointDown, unauthenticated, unexpectedAnswer } from './errors.js';
import { apiKeyMetadata, collectionsStub, isTransportFailure } from './clients/grpc.js';
import type { QdrantDistance } from './ground-truth.js';

export interface TargetInfo {
  collection: string;
  dim: number;
  distance: QdrantDistance;
  points: number | null;
  /** The server's `GET /` title and version (the package version), e.g. {title: "strata", version}. */
  server: { title: string | null; version: string | null };
  /** Strata's own section of the collection info (tiers, placement, memory), when present. */
  strata: unknown;
}

const PROBE_TIMEOUT_MS = 5000;

interface Fetched {
  status: number;
  body: unknown;
  text: string;
}

async function getJson(origin: string, path: string, apiKey: string | undefined): Promise<Fetched> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey !== undefined) headers['api-key'] = apiKey;
  let r: Awaited<ReturnType<typeof request>>;
  try {
    r = await request(origin + path, { method: 'GET', headers, headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS });
  } catch (e) {
    throw endpointDown('--url', origin, e);
  }
  const text = await r.body.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported below with the text
  }
  return { status: r.statusCode, body, text };
}

const at = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), v);

/** GET /collections/{c} (and / for the version, /collections to list names when c is missing). */
export async function probeRest(origin: string, collection: string, apiKey: string | undefined): Promise<TargetInfo> {
  const info = await getJson(origin, `/collections/${encodeURIComponent(collection)}`, apiKey);
  if (info.status === 401) throw unauthenticated(origin);
  if (info.status === 404) {
    const list = await getJson(origin, '/collections', apiKey);
    const names = at(list.body, 'result', 'collections');
    throw collectionMissing(collection, origin, Array.isArray(names) ? names.map((c) => String(at(c, 'name'))) : null);
  }
  if (info.status !== 200) throw unexpectedAnswer(`${origin}/collections/${collection}`, info.status, info.text);
  const vectors = at(info.body, 'result', 'config', 'params', 'vectors');
  if (vectors !== null && typeof vectors === 'object' && !('size' in vectors)) {
    const names = Object.keys(vectors).join(', ');
    throw unexpectedAnswer(`${origin}/collections/${collection}`, info.status, `its vector is named (${names}): the load generator sends unnamed vectors only`);
  }
  const size = at(info.body, 'result', 'config', 'params', 'vectors', 'size');
  const distance = at(info.body, 'result', 'config', 'params', 'vectors', 'distance');
  if (typeof size !== 'number' || !['Euclid', 'Dot', 'Cosine'].includes(String(distance))) {
    throw unexpectedAnswer(`${origin}/collections/${collection}`, info.status, `no result.config.params.vectors {size, distance} in ${info.text}`);
  }
  const points = at(info.body, 'result', 'points_count');
  const root = await getJson(origin, '/', apiKey);
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    collection,
    dim: size,
    distance: distance as QdrantDistance,
    points: typeof points === 'number' ? points : null,
    server: { title: str(at(root.body, 'title')), version: str(at(root.body, 'version')) },
    strata: at(info.body, 'result', 'strata') ?? null,
  };
}

/** strata.v1.Collections/Get: the gRPC port answers and knows the collection. */
export function probeGrpc(target: string, collection: string, apiKey: string | undefined): Promise<void> {
  const stub = collectionsStub(target);
  return new Promise<void>((resolve, reject) => {
    stub.Get({ collection_name: collection }, apiKeyMetadata(apiKey), { deadline: Date.now() + PROBE_TIMEOUT_MS }, (e) => {
      stub.close();
      if (!e) resolve();
      else if (isTransportFailure(e) || e.code === grpc.status.DEADLINE_EXCEEDED)
        reject(endpointDown('--grpc-url', target, new Error(e.details || grpc.status[e.code])));
      else if (e.code === grpc.status.NOT_FOUND) reject(collectionMissing(collection, target, null));
      else if (e.code === grpc.status.UNAUTHENTICATED) reject(unauthenticated(target));
      else reject(unexpectedAnswer(target, grpc.status[e.code] ?? e.code, e.details));
    });
  });
}
