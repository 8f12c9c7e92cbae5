import { describe, expect, it } from 'vitest';
import { StrataError } from '../../common/errors.js';
import { grpcTarget, isLoopbackHost, pgTarget, restTarget } from '../../loadgen/target.js';
import { thrown } from '../helpers/temp.js';

describe('loadgen targets', () => {
  it('treats 127.0.0.0/8, ::1 and localhost as loopback and nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['10.0.0.1', '192.168.1.1', '0.0.0.0', '128.0.0.1', 'example.com', 'localhost.example.com', '::', '::ffff:10.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('refuses a non-loopback --url unless --allow-remote is given', () => {
    const e = thrown(() => restTarget('http://192.168.1.10:6333', false)) as StrataError;
    expect(e).toBeInstanceOf(StrataError);
    expect(e.code).toBe('STRATA_INVALID_ARGUMENT');
    expect(e.message).toMatch(/not a loopback address.*--allow-remote/);
    expect(restTarget('http://192.168.1.10:6333', true).origin).toBe('http://192.168.1.10:6333');
  });

  it('normalises numeric host spellings before judging them (2130706433 is 127.0.0.1)', () => {
    expect(restTarget('http://2130706433:6333/', false).origin).toBe('http://127.0.0.1:6333');
    expect(() => restTarget('http://0x0a000001:6333', false)).toThrow(/not a loopback/);
  });

  it('rejects URLs with a path or a non-http scheme, naming --url', () => {
    expect(() => restTarget('http://127.0.0.1:6333/collections', false)).toThrow(/--url: .*has a path/);
    expect(() => restTarget('ftp://127.0.0.1', false)).toThrow(/--url: .*http/);
    expect(() => restTarget('not a url', false)).toThrow(/--url: .*not a URL/);
  });

  it("defaults the gRPC address to the REST host on the protocol's port and checks it like --url", () => {
    const rest = restTarget('http://127.0.0.1:6333', false);
    expect(grpcTarget(undefined, rest, false, 'qdrant-grpc')).toBe('127.0.0.1:6334');
    expect(grpcTarget(undefined, rest, false, 'grpc')).toBe('127.0.0.1:6335');
    expect(grpcTarget('[::1]:7000', rest, false, 'grpc')).toBe('[::1]:7000');
    expect(() => grpcTarget('8.8.8.8:6334', rest, false, 'qdrant-grpc')).toThrow(/--grpc-url: .*not a loopback/);
    expect(() => grpcTarget('127.0.0.1', rest, false, 'grpc')).toThrow(/host:port/);
  });

  it('--protocol pgvector: accepts postgres:// URLs on loopback or a socket directory, refuses other hosts without --allow-remote', () => {
    expect(pgTarget('postgres://u:secret@127.0.0.1:5433/db', false).display).toBe('127.0.0.1:5433/db');
    expect(pgTarget('postgresql://u@localhost/db?host=/run/postgresql', false).display).toBe('/run/postgresql/db');
    expect(() => pgTarget('postgres://u@db.example.com/db', false)).toThrow(/not a loopback address/);
    expect(pgTarget('postgres://u@db.example.com/db', true).display).toBe('db.example.com:5432/db');
    expect(() => pgTarget('http://127.0.0.1:6333', false)).toThrow(/must start with postgres:\/\//);
  });
});
