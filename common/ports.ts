// The ports Strata listens on unless told otherwise. Qdrant's own REST and gRPC ports come first, so
// that a Qdrant client pointed at Strata changes nothing but the host; Strata's own gRPC dialect
// (strata.v1) takes the next one.

/** REST (Qdrant's REST API and Strata's extensions). */
export const DEFAULT_REST_PORT = 6333;
/** Qdrant's gRPC API (qdrant.Qdrant, qdrant.Collections, qdrant.Points, qdrant.Snapshots). */
export const DEFAULT_QDRANT_GRPC_PORT = 6334;
/** Strata's gRPC API (strata.v1). */
export const DEFAULT_GRPC_PORT = 6335;
