// JSON schemas of path parameters, validated by fastify (ajv) on the collection and point GET routes.
// Bodies are validated by hand in server/api/requests.ts instead: a MessagePack body carries vectors
// as Float32Array, which JSON Schema cannot type, and hand-written checks name the exact field
// ("searches[3].vector").
export const collectionParams = {
  type: 'object',
  properties: { collection_name: { type: 'string', minLength: 1, maxLength: 255 } },
  required: ['collection_name'],
} as const;

export const pointParams = {
  type: 'object',
  properties: { collection_name: { type: 'string', minLength: 1, maxLength: 255 }, id: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['collection_name', 'id'],
} as const;
