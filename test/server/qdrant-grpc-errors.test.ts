// How Qdrant's gRPC API spells a Strata error: the mapped status, the code leading the message and
// in the strata-code trailer, and retry-after where REST sends it, which Qdrant's JavaScript client
// turns into its QdrantClientResourceExhaustedError.
import { Code } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../common/errors.js';
import type { GrpcContext } from '../../server/grpc/calls.js';
import { qdrantStatus } from '../../server/grpc/qdrant/calls.js';

const ctx = { log: { error: () => {} } } as unknown as GrpcContext;

describe('Qdrant gRPC statuses', () => {
  it('maps overload to RESOURCE_EXHAUSTED with retry-after', () => {
    const e = qdrantStatus(ctx, new StrataError('STRATA_OVERLOADED', 'queue full', {}));
    expect(e.code).toBe(Code.ResourceExhausted);
    expect(e.rawMessage).toBe('STRATA_OVERLOADED: queue full');
    expect(e.metadata.get('strata-code')).toBe('STRATA_OVERLOADED');
    expect(e.metadata.get('retry-after')).toBe('1');
  });

  it('maps not found and bad input without retry-after', () => {
    const nf = qdrantStatus(ctx, new StrataError('STRATA_COLLECTION_NOT_FOUND', 'no collection x', {}));
    expect(nf.code).toBe(Code.NotFound);
    expect(nf.metadata.get('retry-after')).toBeNull();
    expect(qdrantStatus(ctx, new StrataError('STRATA_INVALID_ARGUMENT', 'limit: bad', {})).code).toBe(Code.InvalidArgument);
    expect(qdrantStatus(ctx, new StrataError('STRATA_SHUTTING_DOWN', 'draining', {})).metadata.get('retry-after')).toBe('1');
  });

  it('answers anything else as INTERNAL without its internals', () => {
    const e = qdrantStatus(ctx, new Error('secret path /var/x'));
    expect(e.code).toBe(Code.Internal);
    expect(e.rawMessage).not.toContain('/var/x');
  });
});
