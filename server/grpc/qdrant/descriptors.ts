// Qdrant's gRPC services, as the dependency @qdrant/js-client-grpc describes them: Strata never
// retypes Qdrant's contract. The package exports only `file_qdrant` and `Qdrant`; the Points and
// Collections services are reached through the files qdrant.proto imports, found by name, so that a
// client upgrade that moves them fails here at startup rather than serving a half-empty API.
import type { DescService } from '@bufbuild/protobuf';
import { file_qdrant, Qdrant } from '@qdrant/js-client-grpc';

function serviceNamed(typeName: string): DescService {
  for (const file of file_qdrant.dependencies) {
    const s = file.services.find((x) => x.typeName === typeName);
    if (s) return s;
  }
  throw new Error(`@qdrant/js-client-grpc: no service ${typeName} among the imports of qdrant.proto`);
}

export interface QdrantServices {
  qdrant: DescService;
  collections: DescService;
  points: DescService;
}

export function qdrantServices(): QdrantServices {
  return { qdrant: Qdrant, collections: serviceNamed('qdrant.Collections'), points: serviceNamed('qdrant.Points') };
}

/** qdrant.Snapshots: a collection's snapshots (snapshots-rpc.ts); the full ones answer UNIMPLEMENTED. */
export function snapshotsService(): DescService {
  return serviceNamed('qdrant.Snapshots');
}
