// The dashboard's one way to the server: Strata's REST API on the same origin, with the API key the
// user gave this browser tab (sessionStorage: it goes when the tab does). A 401 asks for the key.
const KEY = 'strata-api-key';

export class NeedsKey extends Error {}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function apiKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function setApiKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

/** Calls the API; the answer's `result`. A 401 throws NeedsKey, any other failure ApiError with the server's message. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await callWithStats<T>(method, path, body)).result;
}

/** As call, with the envelope's `strata` field (a search's cost, with with_stats). */
export async function callWithStats<T>(method: string, path: string, body?: unknown): Promise<{ result: T; strata: unknown }> {
  const headers: Record<string, string> = {};
  const key = apiKey();
  if (key) headers['api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (r.status === 401) throw new NeedsKey('the server asks for an API key');
  const text = await r.text();
  let json: { result?: T; status?: { error?: string } | string; strata?: unknown } = {};
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    // not JSON: the status line says enough
  }
  if (!r.ok) throw new ApiError(r.status, typeof json.status === 'object' && json.status?.error ? json.status.error : `${r.status} ${r.statusText}`);
  return { result: json.result as T, strata: json.strata };
}

/**
 * Whether the page is served by `strata router` (its version endpoint counts the shards). Each shard
 * measures its own search there, and the router refuses with_stats rather than add them up.
 */
export async function viaRouter(): Promise<boolean> {
  // What serves the page does not change while it is open: asked once (a refused key is asked again).
  if (servedByRouter !== null) return servedByRouter;
  const key = apiKey();
  const r = await fetch('/', key ? { headers: { 'api-key': key } } : {});
  if (r.status === 401) throw new NeedsKey('the server asks for an API key');
  const root = (await r.json().catch(() => ({}))) as { shards?: unknown };
  servedByRouter = typeof root.shards === 'number';
  return servedByRouter;
}
let servedByRouter: boolean | null = null;

/** Sends raw bytes (a snapshot to restore). */
export async function upload<T>(path: string, data: Blob): Promise<T> {
  const key = apiKey();
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (key) headers['api-key'] = key;
  const r = await fetch(path, { method: 'POST', headers, body: data });
  if (r.status === 401) throw new NeedsKey('the server asks for an API key');
  const json = (await r.json().catch(() => ({}))) as { result?: T; status?: { error?: string } };
  if (!r.ok) throw new ApiError(r.status, json.status?.error ?? `${r.status} ${r.statusText}`);
  return json.result as T;
}

/** A file from the API (a snapshot), with the key, as a blob. */
export async function download(path: string): Promise<Blob> {
  const key = apiKey();
  const r = await fetch(path, key ? { headers: { 'api-key': key } } : {});
  if (r.status === 401) throw new NeedsKey('the server asks for an API key');
  if (!r.ok) throw new ApiError(r.status, `${r.status} ${r.statusText}`);
  return r.blob();
}
