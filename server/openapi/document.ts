// The OpenAPI 3.1 document of the REST API, served at /openapi.json and checked in as
// docs/openapi.json (a test keeps the two equal; regenerate with `node dist/server/openapi/write.js`).
// It documents the default limits; `strata serve --body-limit/--max-batch` change them.
import { FIELD_SCHEMAS, FRESH_PLANS, MAX_COLLECTION_NAME_BYTES, MAX_PAYLOAD_M, MAX_RERANK, MAX_SPARSE_NONZEROS, PLAN_NAMES } from '../../engine/public.js';
import { MAX_DENSE_VECTORS, MAX_SPARSE_VECTORS } from '../api/writes.js';
import { POINT_BYTES } from '../api/answer-size.js';
import { FILTER_PLANS, MAX_FACET_LIMIT, MAX_PREFETCH_DEPTH, MAX_PREFETCHES } from '../api/requests.js';
import {
  DEFAULT_ANSWER_LIMIT,
  DEFAULT_BODY_LIMIT,
  DEFAULT_MAX_BATCH,
  formatBytes,
  MAX_HNSW_EF,
  MAX_IDS,
  MAX_LIMIT,
  MAX_SELECTOR_KEYS,
  MAX_TIMEOUT_SECONDS,
} from '../options.js';
import { VERSION } from '../../common/version.js';
import { MAX_ALIAS_ACTIONS } from '../api/aliases.js';
import { MAX_BATCH_OPERATIONS } from '../api/batch-writes.js';
import { DEFAULT_RRF_K, MAX_EXAMPLES, MAX_MMR_CANDIDATES } from '../api/query-input.js';
import { MAX_MATRIX_SAMPLE } from '../api/search-matrix.js';
import { NOT_SERVED } from '../rest/routes/not-served.js';
import { filterSchemas } from './filter-schemas.js';

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const ref = (name: string): Obj => ({ $ref: `#/components/schemas/${name}` });
const MSGPACK = 'application/msgpack';

/** Both encodings of a body: JSON, and MessagePack with the same structure (vectors may be float32 typed arrays). */
const content = (schema: Obj): Obj => ({ 'application/json': { schema }, [MSGPACK]: { schema } });

/** Qdrant's envelope around a result, optionally with Strata's `strata` field (present only when asked for: with_stats). */
const envelope = (result: Obj, strata?: Obj): Obj => ({
  type: 'object',
  required: ['result', 'status', 'time'],
  properties: {
    result,
    status: { const: 'ok' },
    time: { type: 'number', description: 'Seconds the server spent on the request.' },
    ...(strata ? { strata } : {}),
  },
});

const errorResponse = (description: string): Obj => ({ description, content: content(ref('ErrorResponse')) });

const ERRORS: Obj = {
  '400': errorResponse('Bad input: the message names the field (STRATA_INVALID_ARGUMENT).'),
  '401': errorResponse('Missing or wrong API key (STRATA_UNAUTHENTICATED).'),
  '404': errorResponse('Unknown collection or point (STRATA_COLLECTION_NOT_FOUND, STRATA_POINT_NOT_FOUND).'),
  '413': errorResponse(
    `Body over the body limit, batch over the batch limit, or an answer that may exceed the answer limit (--answer-limit, default ${formatBytes(DEFAULT_ANSWER_LIMIT)}: points asked for × (${POINT_BYTES} bytes + 4 per vector element when with_vector), checked before any search runs); the message says the limit and how to split (STRATA_PAYLOAD_TOO_LARGE).`,
  ),
  '415': errorResponse('Content type other than JSON or MessagePack (STRATA_UNSUPPORTED_MEDIA_TYPE).'),
  '503': errorResponse('Shutting down (STRATA_SHUTTING_DOWN); retry after the Retry-After seconds on another replica.'),
};
const SEARCH_ERRORS: Obj = {
  ...ERRORS,
  '429': errorResponse('The collection queue is full (STRATA_OVERLOADED); retry after the Retry-After seconds.'),
  '504': errorResponse('No answer before the deadline set by ?timeout= (STRATA_DEADLINE_EXCEEDED).'),
};

const collectionName: Obj = {
  name: 'collection_name',
  in: 'path',
  required: true,
  description: `At most ${MAX_COLLECTION_NAME_BYTES} bytes of UTF-8; longer is a 400 naming collection_name.`,
  schema: { type: 'string', minLength: 1 },
};
const timeout: Obj = {
  name: 'timeout',
  in: 'query',
  required: false,
  description: `Deadline in seconds (0 < timeout <= ${MAX_TIMEOUT_SECONDS}); past it the request fails with 504.`,
  schema: { type: 'number', exclusiveMinimum: 0, maximum: MAX_TIMEOUT_SECONDS },
};

const ok = (description: string, schema: Obj): Obj => ({ '200': { description, content: content(schema) }, ...ERRORS });
const searchOk = (description: string, schema: Obj): Obj => ({ '200': { description, content: content(schema) }, ...SEARCH_ERRORS });

/** A grouped search route: its body, and the groups with their hits. */
/** {searches: [request]}: a batch route's body. */
function batchOf(request: string, what: string): Obj {
  return {
    type: 'object',
    required: ['searches'],
    properties: {
      searches: {
        type: 'array',
        maxItems: DEFAULT_MAX_BATCH,
        items: ref(request),
        description: `At most --max-batch (default ${DEFAULT_MAX_BATCH}) ${what}; more is a 413.`,
      },
    },
  };
}

function groupsPost(summary: string, body: string): Obj {
  const groups = envelope({ type: 'object', properties: { groups: { type: 'array', items: ref('PointGroup') } } }, ref('StrataSearchStats'));
  return post(summary, ref(body), searchOk('The best groups, each with its best hits', groups), true);
}

function post(summary: string, body: Obj, responses: Obj, search = false): Obj {
  return {
    summary,
    parameters: [collectionName, ...(search ? [timeout] : [])],
    requestBody: { required: false, content: content(body) },
    responses,
  };
}

function schemas(): Obj {
  const vector: Obj = {
    type: 'array',
    items: { type: 'number' },
    description:
      'Exactly the collection dimension of finite numbers (float32). In MessagePack also a Float32Array (msgpackr typed-array extension: ext type 0x74, first data byte 7, then little-endian float32).',
  };
  const params: Obj = {
    type: 'object',
    properties: {
      hnsw_ef: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_HNSW_EF,
        description: 'Candidate list size (default max(64, limit + offset)); raised to limit + offset when smaller.',
      },
      exact: { type: 'boolean', description: 'Brute force over every tier instead of the graph.' },
      rerank: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_RERANK,
        description:
          "On a collection with compact codes: at most this many candidates are re-scored with full vectors (default 3 × (limit + offset)); candidates whose error bound shows they cannot win are skipped. 0: return the codes' estimates. Otherwise at least limit + offset. Wins over quantization.",
      },
      filter_plan: {
        enum: [...FILTER_PLANS],
        description: "Strata's own, for benchmarks: the plan a filtered search runs instead of the planner's choice (only with a filter).",
      },
      quantization: {
        type: 'object',
        description: "Qdrant's quantization knobs, mapped onto the re-rank (ignored on a collection without codes).",
        properties: {
          ignore: { type: 'boolean', description: 'Re-score the whole candidate list with full vectors.' },
          rescore: { type: 'boolean', description: "false: answer with the codes' estimated scores, reading no full vector." },
          oversampling: { type: 'number', minimum: 1, description: 'Re-score ceil(oversampling × (limit + offset)) candidates.' },
        },
      },
    },
  };
  const windowProps: Obj = {
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
    offset: { type: 'integer', minimum: 0, maximum: MAX_LIMIT, description: `Results to skip; limit + offset <= ${MAX_LIMIT}.` },
  };
  const groupProps: Obj = {
    group_by: { type: 'string', description: 'The payload key whose keyword or integer values group the hits; a point with several values joins each group.' },
    group_size: { type: 'integer', minimum: 1, default: 3, description: 'Best hits per group.' },
    limit: { type: 'integer', minimum: 1, default: 10, description: `Groups, ranked by their best hit; limit × group_size <= ${MAX_LIMIT}.` },
  };
  const common: Obj = {
    filter: ref('Filter'),
    params: ref('SearchParams'),
    with_payload: ref('WithPayload'),
    with_vector: {
      oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string' } }],
      default: false,
      description: 'true: every vector of the point; or the names of the vectors to answer with (dense and sparse).',
    },
    score_threshold: { type: 'number', description: 'Euclid: keep score <= threshold; Dot and Cosine: keep score >= threshold.' },
    with_stats: { type: 'boolean', default: false, description: "Answer with Strata's cost of the search in the envelope's `strata` field." },
  };
  const USING: Obj = {
    type: 'string',
    description:
      'The vector the query searches: the dense one by its name (default ""), or a sparse one (its query a sparse vector, {"nearest": it} or a point id).',
  };
  const tierCounts: Obj = { type: 'object', properties: { dram: { type: 'number' }, cxl: { type: 'number' } } };
  return {
    Vector: vector,
    DenseParams: {
      type: 'object',
      required: ['size', 'distance'],
      properties: {
        size: { type: 'integer', minimum: 1 },
        distance: { enum: ['Cosine', 'Euclid', 'Dot'] },
        on_disk: { const: false },
        datatype: { const: 'float32' },
      },
    },
    SparseVector: {
      type: 'object',
      required: ['indices', 'values'],
      additionalProperties: false,
      description: 'A sparse vector: unique dimension indices (unsigned 32-bit) and their values, as many of each.',
      properties: {
        indices: { type: 'array', maxItems: MAX_SPARSE_NONZEROS, items: { type: 'integer', minimum: 0, maximum: 4294967295 } },
        values: { type: 'array', maxItems: MAX_SPARSE_NONZEROS, items: { type: 'number' } },
      },
    },
    NamedVectors: {
      type: 'object',
      description:
        'A point\'s vectors by name: each dense vector under its name ("" when unnamed; the primary one required in an upsert, the secondary ones optional) and each sparse vector of the collection\'s sparse_vectors as {indices, values}.',
      additionalProperties: { oneOf: [ref('Vector'), ref('SparseVector')] },
    },
    SearchParams: params,
    ...filterSchemas(),
    ExtendedPointId: {
      oneOf: [
        { type: 'integer', minimum: 0 },
        { type: 'string', format: 'uuid', description: 'The id of a point written with a UUID (--data-dir); built indexes have integer ids.' },
      ],
    },
    SearchRequest: {
      type: 'object',
      required: ['vector', 'limit'],
      properties: {
        vector: {
          oneOf: [
            ref('Vector'),
            {
              type: 'object',
              required: ['name', 'vector'],
              description:
                'A named vector: a dense one by its name (a secondary one in its own graph, without params.rerank, params.filter_plan or with_stats), or a sparse one, searched exactly through its inverted index (params: exact only).',
              properties: { name: { type: 'string' }, vector: { oneOf: [ref('Vector'), ref('SparseVector')] } },
            },
          ],
        },
        ...windowProps,
        ...common,
      },
    },
    SearchGroupsRequest: {
      type: 'object',
      required: ['vector', 'group_by'],
      properties: { vector: ref('Vector'), ...groupProps, ...common },
    },
    QueryGroupsRequest: {
      type: 'object',
      required: ['query', 'group_by'],
      properties: { query: ref('Query'), ...groupProps, ...common },
    },
    PointGroup: {
      type: 'object',
      properties: { id: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, hits: { type: 'array', items: ref('ScoredPoint') } },
    },
    SearchBatchRequest: batchOf('SearchRequest', 'searches'),

    QueryRequest: {
      type: 'object',
      required: ['query'],
      properties: {
        query: ref('Query'),
        prefetch: ref('Prefetches'),
        using: USING,
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 10 },
        offset: windowProps['offset']!,
        ...common,
      },
    },
    Prefetches: {
      oneOf: [ref('Prefetch'), { type: 'array', maxItems: MAX_PREFETCHES, items: ref('Prefetch') }],
      description: `Stages giving the query its candidates, at most ${MAX_PREFETCHES} a stage and ${MAX_PREFETCH_DEPTH} deep; the query's filter applies to each. A fusion merges their answers; a vector re-scores their union exactly.`,
    },
    Prefetch: {
      type: 'object',
      required: ['query'],
      properties: {
        query: ref('Query'),
        prefetch: ref('Prefetches'),
        using: USING,
        filter: ref('Filter'),
        params: ref('SearchParams'),
        score_threshold: common['score_threshold']!,
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          default: 10,
          description: `The prefetches of one stage ask for at most ${MAX_LIMIT} points in all.`,
        },
      },
    },
    Query: {
      oneOf: [
        ref('VectorInput'),
        { ...ref('SparseVector'), description: 'With `using` naming a sparse vector: searched exactly through its inverted index.' },
        {
          type: 'object',
          required: ['nearest'],
          properties: {
            nearest: ref('VectorInput'),
            mmr: {
              type: 'object',
              properties: {
                diversity: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
                candidates_limit: { type: 'integer', minimum: 1, maximum: MAX_MMR_CANDIDATES, description: 'Default: limit + offset.' },
              },
              description:
                "Maximal marginal relevance: the most relevant first, then the best (1 − diversity) × relevance − diversity × max similarity to those picked; scores stay the query's.",
            },
          },
        },
        { type: 'object', required: ['recommend'], properties: { recommend: ref('RecommendInput') } },
        {
          type: 'object',
          required: ['discover'],
          properties: { discover: { type: 'object', required: ['target'], properties: { target: ref('VectorInput'), context: ref('ContextPairs') } } },
          description:
            'Each candidate scores Σ over the pairs of +1 nearer the positive, −1 nearer the negative, plus its similarity to the target squashed into (0, 1). Candidates: the prefetches, or with params.exact every point.',
        },
        {
          type: 'object',
          required: ['context'],
          properties: { context: ref('ContextPairs') },
          description: 'Each candidate scores Σ over the pairs of s / (1 + |s|), s = min(sim to positive − sim to negative, 0). Candidates as for discover.',
        },
        {
          type: 'object',
          required: ['order_by'],
          properties: { order_by: ref('OrderBy') },
          description: 'Points in payload order (no prefetch), score 0, with order_value.',
        },
        { type: 'object', required: ['fusion'], properties: { fusion: { enum: ['rrf', 'dbsf'] } }, description: 'With prefetch only.' },
        {
          type: 'object',
          required: ['rrf'],
          properties: {
            rrf: {
              type: 'object',
              properties: {
                k: { type: 'integer', minimum: 1, default: DEFAULT_RRF_K },
                weights: { type: 'array', items: { type: 'number', minimum: 0 }, description: 'One per prefetch.' },
              },
            },
          },
          description: 'With prefetch only: a point scores the sum of 1 / ((rank + 1) / weight + k − 1) over the prefetches.',
        },
      ],
      description:
        'Nearest (a vector, or a point id standing for its stored vector, with optional MMR), recommend (average_vector), or a fusion of the prefetches (rrf, dbsf); the points a query names are left out of its answer.',
    },
    ContextPairs: {
      oneOf: [ref('ContextPair'), { type: 'array', maxItems: MAX_EXAMPLES, items: ref('ContextPair') }],
    },
    ContextPair: { type: 'object', required: ['positive', 'negative'], properties: { positive: ref('VectorInput'), negative: ref('VectorInput') } },
    DiscoverRequest: {
      type: 'object',
      required: ['limit', 'params'],
      properties: {
        target: ref('VectorInput'),
        context: { type: 'array', maxItems: MAX_EXAMPLES, items: ref('ContextPair') },
        ...windowProps,
        ...common,
      },
      description: 'Without target, a context search. It scores every matching point: params.exact must be true.',
    },
    DiscoverBatchRequest: batchOf('DiscoverRequest', 'discoveries'),
    VectorInput: { oneOf: [ref('Vector'), ref('ExtendedPointId')], description: 'A vector, or the id of a point whose stored vector it stands for.' },
    RecommendInput: {
      type: 'object',
      required: ['positive'],
      properties: {
        positive: { type: 'array', minItems: 1, maxItems: MAX_EXAMPLES, items: ref('VectorInput') },
        negative: { type: 'array', maxItems: MAX_EXAMPLES, items: ref('VectorInput') },
        strategy: { const: 'average_vector', description: 'Searches with 2 × mean(positive) − mean(negative); best_score and sum_scores are a 400.' },
      },
    },
    RecommendRequest: {
      type: 'object',
      required: ['positive', 'limit'],
      properties: {
        positive: { type: 'array', minItems: 1, maxItems: MAX_EXAMPLES, items: ref('VectorInput') },
        negative: { type: 'array', maxItems: MAX_EXAMPLES, items: ref('VectorInput') },
        strategy: { const: 'average_vector' },
        ...windowProps,
        ...common,
      },
    },
    PointRequest: {
      type: 'object',
      required: ['ids'],
      properties: {
        ids: { type: 'array', maxItems: MAX_IDS, items: ref('ExtendedPointId') },
        with_payload: common['with_payload']!,
        with_vector: { type: 'boolean', default: false },
      },
    },
    ScrollRequest: {
      type: 'object',
      properties: {
        offset: { type: 'integer', minimum: 0, description: 'Start from this point id (inclusive); points come in ascending id order. Not with order_by.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_IDS, default: 10 },
        filter: ref('Filter'),
        with_payload: common['with_payload']!,
        with_vector: { type: 'boolean', default: false },
        order_by: ref('OrderBy'),
      },
    },
    ScalarInt8: {
      type: 'object',
      required: ['scalar'],
      properties: {
        scalar: { type: 'object', required: ['type'], properties: { type: { const: 'int8' }, always_ram: { const: true } } },
      },
      description:
        "Qdrant's scalar int8 quantization: Strata's sq8 code, kept in DRAM by the collection's compactions (quantile is refused: Strata clips 0.01% at each end of each dimension; product and binary are refused).",
    },
    OrderBy: {
      oneOf: [
        { type: 'string' },
        {
          type: 'object',
          required: ['key'],
          properties: {
            key: { type: 'string' },
            direction: { enum: ['asc', 'desc'], default: 'asc' },
            start_from: { oneOf: [{ type: 'number' }, { type: 'string', format: 'date-time' }] },
          },
        },
      ],
      description:
        "Points in the order of a payload key's integer, float or datetime index (datetimes as microseconds in order_value), each once at its first value met, ties by id, from start_from; no next page offset.",
    },
    SearchMatrixRequest: {
      type: 'object',
      properties: {
        sample: {
          type: 'integer',
          minimum: 2,
          maximum: MAX_MATRIX_SAMPLE,
          default: 10,
          description: 'sample × sample × dimensions at most the request work limit.',
        },
        limit: { type: 'integer', minimum: 1, default: 3 },
        filter: ref('Filter'),
      },
    },
    SearchMatrixPair: { type: 'object', properties: { a: ref('ExtendedPointId'), b: ref('ExtendedPointId'), score: { type: 'number' } } },
    CountRequest: { type: 'object', properties: { filter: ref('Filter'), exact: { type: 'boolean' } } },
    FacetRequest: {
      type: 'object',
      required: ['key'],
      properties: {
        key: { type: 'string', description: 'A payload key with a keyword, uuid, integer or bool index.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_FACET_LIMIT, default: 10 },
        filter: ref('Filter'),
        exact: { type: 'boolean', description: 'Counts are always exact.' },
      },
    },
    ScoredPoint: {
      type: 'object',
      required: ['id', 'version', 'score', 'payload'],
      properties: {
        id: { type: 'integer' },
        version: { type: 'integer', const: 0 },
        score: { type: 'number', description: 'Euclid: Euclidean distance (smaller is better). Dot: dot product. Cosine: cosine similarity.' },
        payload: { type: ['object', 'null'] },
        vector: ref('Vector'),
      },
    },
    Record: {
      type: 'object',
      required: ['id', 'payload'],
      properties: { id: { type: 'integer' }, payload: { type: ['object', 'null'] }, vector: ref('Vector') },
    },
    StrataSearchStats: {
      type: 'object',
      description: 'What the search cost, per tier.',
      properties: {
        mode: { enum: ['local', 'ndp'] },
        hops: { type: 'number' },
        distance_computations: { type: 'number' },
        accesses: tierCounts,
        bytes: tierCounts,
        dram_share: { type: 'number', description: 'Share of accesses served by the DRAM tier.' },
        modelled_memory_ns: { type: 'number' },
        modelled_cxl_extra_ns: { type: 'number' },
        injected_ns: { type: 'number' },
        link_messages: { type: 'number' },
        link_bytes: { type: 'number' },
        reranked: { type: 'number', description: 'Candidates re-scored with full vectors after a traversal on compact codes.' },
        distance_dram_share: { type: 'number', description: 'Share of distance computations (codes and vectors) whose records were in DRAM.' },
        stalled_ns: { type: 'number', description: 'Stall measured on the clock while paying injected_ns.' },
        filter: {
          type: 'object',
          description:
            "A filtered search's plan (absent without a filter): scan (only the matching points scored, no graph walk), graph (the walk, each candidate checked against the matches before any CXL read), linked (the walk on matches only through the filter links of hnsw_config.payload_m), two_hop (ACORN's walk on matches through non-matching neighbours' lists, only when params.filter_plan asks for it) or none (nothing matched); the payload indexes' estimate of the matches, the exact count (base and fresh layer), and residual: part of the filter checked per point.",
          properties: {
            plan: { enum: [...PLAN_NAMES] },
            estimated: { type: 'object', properties: { min: { type: 'number' }, exp: { type: 'number' }, max: { type: 'number' } } },
            matched: { type: 'integer' },
            base: { type: 'integer' },
            fresh: { type: 'integer' },
            residual: { type: 'boolean' },
            fresh_plan: {
              enum: [...FRESH_PLANS],
              description:
                "What searched the fresh layer's matches (points written since the last compaction): its graph's walk, a scan of them, every one (params.exact), or nothing (none there).",
            },
            scanned: { type: 'number', description: 'Matching codes the scan scored (per query).' },
            from_runs: { type: 'number', description: "Of them, those read from a keyword value's run." },
            scarce_scans: { type: 'number', description: 'Walks whose entry showed the matches scarce, which scanned instead.' },
            scan_fallbacks: { type: 'number', description: 'Walks that found fewer than the limit of more matches, which scanned after.' },
            linked_walks: { type: 'number', description: 'Walks that took the filter links (hnsw_config.payload_m).' },
            filter_link_reads: {
              type: 'number',
              description: "Reads of the filter links those walks made from the CXL tier (each hop's lookup, then its lists).",
            },
            filter_link_bytes: { type: 'number', description: 'Their bytes.' },
            seeded_walks: { type: 'number', description: "Walks whose entry showed the matches scarce, seeded by a walk on the upper layers' level 1." },
          },
        },
      },
    },
    CollectionInfo: {
      type: 'object',
      required: ['status', 'optimizer_status', 'points_count', 'segments_count', 'config', 'strata'],
      properties: {
        status: {
          enum: ['green', 'yellow', 'red'],
          description:
            'green: serving, every tier where the memory plan put it. yellow: serving, degraded (a tier planned on a NUMA node fell back to emulation, or has pages on another node; strata.status_reasons says which). red: not serving (shutting down).',
        },
        optimizer_status: {
          const: 'ok',
          description:
            'Always ok: no optimiser reports here (indexes are built complete by strata build; writes taken with --data-dir go to a fresh layer that POST /collections/{collection_name}/compact folds into a new base).',
        },
        points_count: { type: 'integer' },
        indexed_vectors_count: { type: 'integer', description: 'Points the graph search can reach from its entry point; the others only exact search finds.' },
        segments_count: { type: 'integer', description: 'Memory segments across all tiers (a tier is one or more segments of at most 1 GiB).' },
        payload_schema: {
          type: 'object',
          description: "The payload indexes by key path: the schema, the object form's parameters, and the points the index holds a value for.",
          additionalProperties: {
            type: 'object',
            required: ['data_type', 'points'],
            properties: { data_type: { enum: [...FIELD_SCHEMAS] }, params: { type: 'object' }, points: { type: 'integer' } },
          },
        },
        config: {
          type: 'object',
          properties: {
            params: {
              type: 'object',
              properties: { vectors: { type: 'object', properties: { size: { type: 'integer' }, distance: { enum: ['Euclid', 'Dot', 'Cosine'] } } } },
            },
            hnsw_config: { type: 'object', properties: { m: { type: 'integer' }, ef_construct: { type: 'integer' }, payload_m: { type: 'integer' } } },
          },
        },
        strata: {
          type: 'object',
          description: 'Tier sizes, bytes and verified placement (bindings), and the memory mode.',
          properties: {
            status_reasons: { type: 'array', items: { type: 'string' }, description: 'Why status is not green; empty when it is.' },
            tiers: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  kind: { enum: ['dram', 'cxl'] },
                  nodes: { type: 'integer' },
                  bytes: { type: 'integer' },
                  resident_bytes: { type: 'integer' },
                  binding: {
                    type: 'object',
                    properties: {
                      mode: { enum: ['numa', 'emulated', 'unbound'] },
                      node: { type: ['integer', 'null'] },
                      pages: { type: 'integer' },
                      pages_on_node: { type: ['integer', 'null'] },
                      pages_elsewhere: { type: ['integer', 'null'] },
                      note: { type: 'string' },
                    },
                  },
                },
              },
            },
            placement: {
              type: 'object',
              properties: {
                policy: { type: 'string' },
                dram_budget_bytes: { type: 'integer' },
                predicted_dram_share: { type: ['number', 'null'] },
                promotion_pool: {
                  type: ['object', 'null'],
                  description:
                    'DRAM slots that live re-tiering refills in place with the neighbour lists the load visits most (strata serve --retier-every): slots, lists in them now, lists moved in since the base was laid out.',
                  properties: { slots: { type: 'integer' }, tenants: { type: 'integer' }, moves: { type: 'integer' } },
                },
              },
            },
            code: {
              type: ['object', 'null'],
              description: 'The compact code the base keeps in DRAM (null: full vectors, or no base yet).',
              properties: { kind: { type: 'string' }, bytes_per_vector: { type: 'integer' } },
            },
            memory: { type: 'object', properties: { mode: { enum: ['numa', 'emulated'] }, reason: { type: 'string' } } },
            payload: {
              type: 'object',
              description:
                "Bytes of the payload values (the columnar store, in the CXL tier: bound to its NUMA node and verified per page, or emulated), of the rows' bookkeeping and of each payload index by key path (both in DRAM).",
              properties: {
                values_bytes: { type: 'integer' },
                values_tier: {
                  type: 'object',
                  properties: {
                    tier: { enum: ['cxl'] },
                    mode: { enum: ['numa', 'emulated'] },
                    node: { type: ['integer', 'null'] },
                    slabs: { type: 'integer' },
                    pages: { type: ['integer', 'null'] },
                    pages_on_node: { type: ['integer', 'null'] },
                    pages_elsewhere: { type: ['integer', 'null'] },
                  },
                },
                rows_bytes: { type: 'integer' },
                index_bytes: { type: 'object', additionalProperties: { type: 'integer' } },
              },
            },
            sparse_bytes: {
              type: 'object',
              additionalProperties: { type: 'integer' },
              description: 'Bytes of each sparse vector (its vectors and inverted index, in DRAM), by name.',
            },
            secondary_bytes: {
              type: 'object',
              additionalProperties: { type: 'integer' },
              description:
                'Bytes of each secondary dense vector, by name: its tiered base, in both tiers (GET /collections/{c}/memory splits them), and its points written since the last compaction (DRAM).',
            },
            read_only: { type: 'boolean', description: 'True when the server has no --data-dir: the collection takes no writes.' },
            live: {
              type: ['object', 'null'],
              properties: {
                fresh_points: { type: 'integer' },
                hidden_base_points: { type: 'integer' },
                applied_operation_id: { type: 'integer' },
                write_log_seq: {
                  type: ['integer', 'null'],
                  description: 'Sequence in the shared write log (strata serve --write-log) of the last write applied; null without one.',
                },
              },
            },
          },
        },
      },
    },
    ErrorResponse: {
      type: 'object',
      required: ['status', 'result', 'time'],
      properties: {
        status: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
        result: { type: 'null' },
        time: { type: 'number' },
      },
    },
  };
}

/** Snapshots of collections created over the API (server/rest/routes/snapshots.ts). */
function snapshotPaths(C: string, errors: Obj): Obj {
  const description = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      creation_time: { type: 'string' },
      size: { type: 'integer' },
      checksum: { type: 'string', description: 'SHA-256 of the file' },
    },
  };
  const name = { name: 'snapshot_name', in: 'path', required: true, schema: { type: 'string' } };
  const answer = (d: string, schema: Obj): Obj => ({ '200': { description: d, content: content(envelope(schema)) }, ...errors });
  return {
    [`${C}/snapshots`]: {
      post: {
        summary: 'Snapshot the collection: its config and every acknowledged write',
        parameters: [collectionName],
        responses: answer('The snapshot', description),
      },
      get: { summary: "The collection's snapshots", parameters: [collectionName], responses: answer('Snapshots', { type: 'array', items: description }) },
    },
    [`${C}/snapshots/{snapshot_name}`]: {
      get: {
        summary: 'Download a snapshot',
        parameters: [collectionName, name],
        responses: { '200': { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...errors },
      },
      delete: { summary: 'Delete a snapshot', parameters: [collectionName, name], responses: answer('Deleted', { const: true }) },
    },
    [`${C}/snapshots/upload`]: {
      post: {
        summary: "Restore a snapshot file sent as its bytes (application/octet-stream; Qdrant's multipart form is a 415)",
        parameters: [collectionName, { name: 'checksum', in: 'query', required: false, schema: { type: 'string' }, description: 'SHA-256 the file must have' }],
        requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        responses: answer('Restored', { const: true }),
      },
    },
    [`${C}/snapshots/recover`]: {
      put: {
        summary: 'Restore a snapshot as this collection (replacing one created over the API)',
        parameters: [collectionName],
        requestBody: {
          required: true,
          content: content({
            type: 'object',
            required: ['location'],
            properties: { location: { type: 'string', description: 'http(s) URL, or file:// inside the snapshot directory' }, checksum: { type: 'string' } },
          }),
        },
        responses: answer('Restored', { const: true }),
      },
    },
  };
}

/** The writes Strata takes (server/rest/routes/writes.ts). */
function livePaths(C: string): Obj {
  const wait: Obj = {
    name: 'wait',
    in: 'query',
    required: false,
    description:
      'true: answer once durable and visible to search (status completed); false (default): once durable (status acknowledged). Strata makes a write visible in the step that learns it is durable, so both answer at the same moment.',
    schema: { type: 'boolean' },
  };
  const writeErrors: Obj = {
    ...ERRORS,
    '405': errorResponse('The server has no --data-dir, or the collection was built offline (STRATA_READ_ONLY).'),
    '507': errorResponse('The data directory refused the write (disk full, read-only, no permission): nothing was acknowledged (STRATA_STORAGE).'),
  };
  const updateResult: Obj = {
    type: 'object',
    properties: {
      operation_id: { type: 'integer', description: 'The write-ahead log sequence number of the write.' },
      status: { enum: ['completed', 'acknowledged'] },
    },
  };
  const update = envelope(updateResult);
  // The integer bound is server/api/writes.ts's (writeIdAt): the range above it numbers UUID points.
  const writeId: Obj = {
    oneOf: [
      {
        type: 'integer',
        minimum: 0,
        description: 'Below the range where the collection numbers its UUID points (docs/api.md, Writes); a larger one is a 400.',
      },
      { type: 'string', format: 'uuid' },
    ],
  };
  const ids = { type: 'array', items: writeId };
  const write = (summary: string, body: Obj): Obj => ({
    summary,
    parameters: [collectionName, wait],
    requestBody: { required: true, content: content(body) },
    responses: { '200': { description: 'Durable (and visible)', content: content(update) }, ...writeErrors },
  });
  // Which points a write selects: listed ids, or every point the filter matches when the write is taken.
  const selector = { points: { ...ids, description: 'The ids (ids that do not exist are ignored); or give filter.' }, filter: ref('Filter') };
  const oneSelector = [{ required: ['points'] }, { required: ['filter'] }];
  const payloadBody = {
    type: 'object',
    required: ['payload'],
    oneOf: oneSelector,
    properties: {
      payload: { type: 'object' },
      ...selector,
      key: { type: 'string', description: 'Merge the payload into the object at this key path instead of the top level.' },
    },
  };
  /** Points to write: each an id and its vectors (a dense list, or by name with sparse ones), with `extra` members. */
  const pointList = (extra: Obj): Obj => ({
    type: 'array',
    items: {
      type: 'object',
      required: ['id', 'vector'],
      properties: { id: writeId, vector: { oneOf: [ref('Vector'), ref('NamedVectors')] }, ...extra },
    },
  });
  return {
    [C]: {
      put: {
        summary: 'Create an empty writable collection (needs --data-dir)',
        parameters: [collectionName],
        requestBody: {
          required: true,
          content: content({
            type: 'object',
            required: ['vectors'],
            properties: {
              vectors: {
                oneOf: [
                  ref('DenseParams'),
                  {
                    type: 'object',
                    maxProperties: MAX_DENSE_VECTORS,
                    description:
                      "Named dense vectors: the first is the primary one (the tiered index's), the others secondary, each in a DRAM graph of its own.",
                    additionalProperties: ref('DenseParams'),
                  },
                ],
              },
              sparse_vectors: {
                type: 'object',
                maxProperties: MAX_SPARSE_VECTORS,
                description:
                  'Named sparse vectors, each searched exactly through an inverted index kept in memory; index.on_disk true, another datatype and full_scan_threshold are refused.',
                additionalProperties: {
                  type: 'object',
                  properties: {
                    modifier: { enum: ['none', 'idf'], description: 'idf: each dimension weighted by ln(1 + (N − n + 0.5) / (n + 0.5)).' },
                    index: { type: 'object', properties: { on_disk: { const: false }, datatype: { const: 'float32' } } },
                  },
                },
              },
              hnsw_config: HNSW_CONFIG,
              quantization_config: ref('ScalarInt8'),
            },
          }),
        },
        responses: {
          '200': { description: 'Created', content: content(envelope({ const: true })) },
          ...writeErrors,
          '409': errorResponse('A collection of that name exists (STRATA_COLLECTION_EXISTS).'),
        },
      },
      patch: {
        summary:
          "Update a created collection's HNSW build (applied at its next compaction) and its automatic compaction threshold; any other setting is a 400 naming it (needs --data-dir)",
        parameters: [collectionName],
        requestBody: {
          required: true,
          content: content({
            type: 'object',
            properties: {
              hnsw_config: HNSW_CONFIG,
              optimizers_config: {
                type: 'object',
                properties: {
                  indexing_threshold: {
                    type: 'integer',
                    minimum: 0,
                    description: 'Kilobytes of float32 vectors (fresh and deleted points) past which the collection compacts itself; 0: only when asked.',
                  },
                },
              },
              quantization_config: { oneOf: [ref('ScalarInt8'), { const: 'Disabled', description: 'Full vectors, no code, from the next compaction.' }] },
            },
          }),
        },
        responses: { '200': { description: 'Updated', content: content(envelope({ const: true })) }, ...writeErrors },
      },
      delete: {
        summary: 'Delete a collection created over the API, with its files',
        parameters: [collectionName],
        responses: { '200': { description: 'Whether it existed', content: content(envelope({ type: 'boolean' })) }, ...writeErrors },
      },
    },
    [`${C}/points`]: {
      put: write('Upsert points: rows (points) or columns (batch); a point id is an unsigned integer (below the UUID range) or a UUID', {
        type: 'object',
        properties: {
          points: pointList({ payload: { type: ['object', 'null'] } }),
          batch: {
            type: 'object',
            required: ['ids', 'vectors'],
            properties: {
              ids,
              vectors: {
                oneOf: [
                  { type: 'array', items: ref('Vector') },
                  {
                    type: 'object',
                    description:
                      'By name: the primary dense vectors, per secondary dense vector a list of vectors or null, and per sparse vector a list of {indices, values} or null.',
                    additionalProperties: { type: 'array' },
                  },
                ],
              },
              payloads: { type: 'array' },
            },
          },
        },
      }),
    },
    [`${C}/points/delete`]: { post: write('Delete points by id or by filter', { type: 'object', oneOf: oneSelector, properties: selector }) },
    [`${C}/points/vectors`]: {
      put: write(
        'Replace the given vectors of existing points (dense, secondary and sparse by name), their other vectors and payloads kept (a point that does not exist is a 404, and nothing is written)',
        {
          type: 'object',
          required: ['points'],
          properties: {
            points: pointList({}),
          },
        },
      ),
    },
    [`${C}/points/vectors/delete`]: {
      post: write(
        'Delete the named sparse and secondary vectors of the selected points; the primary dense vector is refused with a 400 naming it (delete the point), as is a name the collection does not have',
        {
          type: 'object',
          oneOf: oneSelector,
          properties: { ...selector, vector: { type: 'array', items: { type: 'string' } } },
        },
      ),
    },
    ...snapshotPaths(C, writeErrors),
    [`${C}/points/payload`]: {
      post: write('Set payload keys of existing points (merged into what they have)', payloadBody),
      put: write('Overwrite the payload of existing points', payloadBody),
    },
    [`${C}/points/payload/delete`]: {
      post: write('Delete payload keys (key paths) of the selected points', {
        type: 'object',
        required: ['keys'],
        oneOf: oneSelector,
        properties: { keys: { type: 'array', maxItems: MAX_SELECTOR_KEYS, items: { type: 'string' } }, ...selector },
      }),
    },
    [`${C}/points/payload/clear`]: { post: write('Clear the payload of the selected points', { type: 'object', oneOf: oneSelector, properties: selector }) },
    '/collections/aliases': {
      post: {
        summary: 'Create, delete or rename aliases, in order, all or none (an alias on a collection name is a 400, an unknown alias a 404)',
        requestBody: {
          required: true,
          content: content({
            type: 'object',
            required: ['actions'],
            properties: {
              actions: {
                type: 'array',
                maxItems: MAX_ALIAS_ACTIONS,
                items: {
                  type: 'object',
                  minProperties: 1,
                  maxProperties: 1,
                  properties: {
                    create_alias: {
                      type: 'object',
                      required: ['collection_name', 'alias_name'],
                      properties: { collection_name: { type: 'string' }, alias_name: { type: 'string' } },
                    },
                    delete_alias: { type: 'object', required: ['alias_name'], properties: { alias_name: { type: 'string' } } },
                    rename_alias: {
                      type: 'object',
                      required: ['old_alias_name', 'new_alias_name'],
                      properties: { old_alias_name: { type: 'string' }, new_alias_name: { type: 'string' } },
                    },
                  },
                },
              },
            },
          }),
        },
        responses: { '200': { description: 'Applied and durable', content: content(envelope({ type: 'boolean' })) }, ...writeErrors },
      },
    },
    [`${C}/points/batch`]: {
      post: {
        ...write('Point and payload writes in order, every one checked before any is written; update_vectors and delete_vectors are a 400', {
          type: 'object',
          required: ['operations'],
          properties: {
            operations: {
              type: 'array',
              maxItems: MAX_BATCH_OPERATIONS,
              items: {
                type: 'object',
                minProperties: 1,
                maxProperties: 1,
                properties: Object.fromEntries(
                  ['upsert', 'delete', 'set_payload', 'overwrite_payload', 'delete_payload', 'clear_payload'].map((k) => [k, { type: 'object' }]),
                ),
              },
            },
          },
        }),
        responses: {
          '200': { description: 'Durable (and visible), one result per operation', content: content(envelope({ type: 'array', items: updateResult })) },
          ...writeErrors,
        },
      },
    },
    [`${C}/index`]: {
      put: write('Create a payload index (durable and serving when answered); parameters Strata does not honour are a 400 naming them', {
        type: 'object',
        required: ['field_name', 'field_schema'],
        properties: { field_name: { type: 'string', description: 'The key path to index.' }, field_schema: ref('PayloadFieldSchema') },
      }),
    },
    [`${C}/index/{field_name}`]: {
      delete: {
        summary: 'Drop a payload index (its filters are still answered, without it)',
        parameters: [collectionName, { name: 'field_name', in: 'path', required: true, schema: { type: 'string' } }, wait],
        responses: { '200': { description: 'Durable', content: content(update) }, ...writeErrors },
      },
    },
    [`${C}/compact`]: {
      post: {
        summary:
          "Strata: fold the collection's fresh points and deletes into a new tiered base (placement and codes recomputed) while it serves; answered when the new base serves",
        parameters: [collectionName],
        responses: {
          '200': {
            description: 'What the compaction did (compacted: false when there was no live point)',
            content: content(
              envelope({
                type: 'object',
                properties: {
                  compacted: { type: 'boolean' },
                  points: { type: 'integer' },
                  seconds: { type: 'number' },
                  fresh_before: { type: 'integer' },
                  hidden_before: { type: 'integer' },
                  fresh_after: { type: 'integer' },
                  hidden_after: { type: 'integer' },
                },
              }),
            ),
          },
          ...writeErrors,
        },
      },
    },
  };
}

/** Qdrant's routes Strata does not run (rest/routes/not-served.ts): each a 501 saying why. */
function notServedPaths(): Obj {
  const paths: Obj = {};
  for (const r of NOT_SERVED) {
    const path = r.url.replace(/:(\w+)/g, '{$1}');
    const entry = (paths[path] ?? {}) as Obj;
    entry[r.method.toLowerCase()] = {
      summary: `Not run by Strata: ${r.why}`,
      responses: { '501': errorResponse('STRATA_NOT_IMPLEMENTED, saying why and what to use instead.') },
    };
    paths[path] = entry;
  }
  return paths;
}

/** A create's or an update's hnsw_config: the HNSW build of the next compaction. */
const HNSW_CONFIG = {
  type: 'object',
  properties: {
    m: { type: 'integer', minimum: 2, maximum: 128 },
    ef_construct: { type: 'integer', minimum: 4, maximum: 4096 },
    payload_m: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_PAYLOAD_M,
      description: 'filter links within each block of the payload indexes, built at compaction (0: none)',
    },
  },
};

export function openApiDocument(): Obj {
  const C = '/collections/{collection_name}';
  const text = (description: string): Obj => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
  const aliasList = envelope({
    type: 'object',
    properties: { aliases: { type: 'array', items: { type: 'object', properties: { alias_name: { type: 'string' }, collection_name: { type: 'string' } } } } },
  });
  const readPaths: Obj = {
    '/': {
      get: {
        summary: 'Name, the Qdrant API version spoken (what Qdrant clients check) and Strata’s own',
        security: [],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { title: { type: 'string' }, version: { type: 'string' }, strata_version: { type: 'string' } } },
              },
            },
          },
        },
      },
    },
    '/collections': {
      get: {
        summary: 'List collections',
        responses: ok(
          'Collection names',
          envelope({ type: 'object', properties: { collections: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } } }),
        ),
      },
    },
    [C]: {
      get: {
        summary: 'Describe a collection (Qdrant shape plus tier placement)',
        parameters: [collectionName],
        responses: ok('Collection', envelope(ref('CollectionInfo'))),
      },
    },
    '/cluster': {
      get: {
        summary: "Qdrant's cluster status, as a server without its distributed mode: disabled",
        responses: ok('Status', envelope({ type: 'object', properties: { status: { const: 'disabled' } } })),
      },
    },
    [`${C}/cluster`]: {
      get: {
        summary: 'The collection as one local shard of one peer',
        parameters: [collectionName],
        responses: ok(
          'Shards',
          envelope({
            type: 'object',
            properties: {
              peer_id: { type: 'integer' },
              shard_count: { const: 1 },
              local_shards: {
                type: 'array',
                items: { type: 'object', properties: { shard_id: { type: 'integer' }, points_count: { type: 'integer' }, state: { const: 'Active' } } },
              },
              remote_shards: { type: 'array', maxItems: 0 },
              shard_transfers: { type: 'array', maxItems: 0 },
            },
          }),
        ),
      },
    },
    '/aliases': {
      get: {
        summary: 'Every collection alias',
        responses: ok('Aliases by name', aliasList),
      },
    },
    [`${C}/aliases`]: {
      get: {
        summary: 'The aliases of a collection (named by itself or an alias)',
        parameters: [collectionName],
        responses: ok('Aliases by name', aliasList),
      },
    },
    [`${C}/exists`]: {
      get: {
        summary: 'Whether a collection exists',
        parameters: [collectionName],
        responses: ok('Existence', envelope({ type: 'object', properties: { exists: { type: 'boolean' } } })),
      },
    },
    [`${C}/points/search`]: {
      post: post(
        'Nearest neighbours of a vector',
        ref('SearchRequest'),
        searchOk('Scored points, best first', envelope({ type: 'array', items: ref('ScoredPoint') }, ref('StrataSearchStats'))),
        true,
      ),
    },
    [`${C}/points/search/batch`]: {
      post: post(
        'Several searches in one request',
        ref('SearchBatchRequest'),
        searchOk(
          'One list of scored points per search, in order',
          envelope({ type: 'array', items: { type: 'array', items: ref('ScoredPoint') } }, { type: 'array', items: ref('StrataSearchStats') }),
        ),
        true,
      ),
    },
    [`${C}/points/query`]: {
      post: post(
        'Universal query (nearest with MMR, recommend, discover, context, and fusion of prefetch stages)',
        ref('QueryRequest'),
        searchOk(
          'Scored points, best first',
          envelope({ type: 'object', properties: { points: { type: 'array', items: ref('ScoredPoint') } } }, ref('StrataSearchStats')),
        ),
        true,
      ),
    },
    [`${C}/points/search/groups`]: { post: groupsPost('Nearest neighbours of a vector, grouped by a payload key', 'SearchGroupsRequest') },
    [`${C}/points/query/groups`]: { post: groupsPost('Universal query (nearest and recommend), grouped by a payload key', 'QueryGroupsRequest') },
    [`${C}/points/query/batch`]: {
      post: post(
        'Several queries in one request, run together',
        ref('QueryBatchRequest'),
        searchOk(
          'One {points} per query, in order',
          envelope(
            { type: 'array', items: { type: 'object', properties: { points: { type: 'array', items: ref('ScoredPoint') } } } },
            { type: 'array', items: ref('StrataSearchStats') },
          ),
        ),
        true,
      ),
    },
    [`${C}/points/recommend/batch`]: {
      post: post(
        'Several recommendations in one request, run together',
        ref('RecommendBatchRequest'),
        searchOk(
          'One list of scored points per recommendation, in order',
          envelope({ type: 'array', items: { type: 'array', items: ref('ScoredPoint') } }, { type: 'array', items: ref('StrataSearchStats') }),
        ),
        true,
      ),
    },
    [`${C}/points/discover`]: {
      post: post(
        'Discovery by a target and context pairs (or context alone), over every matching point (params.exact)',
        ref('DiscoverRequest'),
        searchOk('Scored points, best first', envelope({ type: 'array', items: ref('ScoredPoint') }, ref('StrataSearchStats'))),
        true,
      ),
    },
    [`${C}/points/discover/batch`]: {
      post: post(
        'Several discoveries in one request',
        ref('DiscoverBatchRequest'),
        searchOk('One list of scored points per discovery, in order', envelope({ type: 'array', items: { type: 'array', items: ref('ScoredPoint') } })),
        true,
      ),
    },
    [`${C}/points/search/matrix/pairs`]: {
      post: post(
        'A random sample of the matching points, each with its nearest others among the sample (exact)',
        ref('SearchMatrixRequest'),
        ok('Pairs', envelope({ type: 'object', properties: { pairs: { type: 'array', items: ref('SearchMatrixPair') } } })),
      ),
    },
    [`${C}/points/search/matrix/offsets`]: {
      post: post(
        'The search matrix as positions into the sample',
        ref('SearchMatrixRequest'),
        ok(
          'A sparse matrix',
          envelope({
            type: 'object',
            properties: {
              offsets_row: { type: 'array', items: { type: 'integer' } },
              offsets_col: { type: 'array', items: { type: 'integer' } },
              scores: { type: 'array', items: { type: 'number' } },
              ids: { type: 'array', items: ref('ExtendedPointId') },
            },
          }),
        ),
      ),
    },
    [`${C}/points/recommend/groups`]: { post: groupsPost('Recommendation (average_vector), grouped by a payload key', 'RecommendGroupsRequest') },
    [`${C}/points/recommend`]: {
      post: post(
        'Recommendation by positive and negative examples (average_vector), the examples named by id left out',
        ref('RecommendRequest'),
        searchOk('Scored points, best first', envelope({ type: 'array', items: ref('ScoredPoint') }, ref('StrataSearchStats'))),
        true,
      ),
    },
    [`${C}/points`]: {
      post: post('Points by id (missing ids are left out)', ref('PointRequest'), ok('Points', envelope({ type: 'array', items: ref('Record') }))),
    },
    [`${C}/points/{id}`]: {
      get: {
        summary: 'One point by id (404 when missing)',
        parameters: [collectionName, { name: 'id', in: 'path', required: true, schema: ref('ExtendedPointId') }],
        responses: ok('Point with its vector', envelope(ref('Record'))),
      },
    },
    [`${C}/points/scroll`]: {
      post: post(
        'Points in id order, a page at a time',
        ref('ScrollRequest'),
        ok(
          'A page and the next page offset',
          envelope({ type: 'object', properties: { points: { type: 'array', items: ref('Record') }, next_page_offset: { type: ['integer', 'null'] } } }),
        ),
      ),
    },
    [`${C}/points/count`]: {
      post: post('Number of points', ref('CountRequest'), ok('Count', envelope({ type: 'object', properties: { count: { type: 'integer' } } }))),
    },
    [`${C}/facet`]: {
      post: post(
        'The values of a payload key held by the most points (matching the filter), most first',
        ref('FacetRequest'),
        ok(
          'Values and counts',
          envelope({
            type: 'object',
            properties: {
              hits: {
                type: 'array',
                items: { type: 'object', properties: { value: { type: ['string', 'integer', 'boolean'] }, count: { type: 'integer' } } },
              },
            },
          }),
        ),
      ),
    },
    '/healthz': { get: { summary: 'The server works (no API key needed)', security: [], responses: { '200': text('healthz check passed') } } },
    '/livez': { get: { summary: 'The process answers (no API key needed)', security: [], responses: { '200': text('livez check passed') } } },
    '/readyz': {
      get: {
        summary: 'Every collection loaded with its tiers bound, and not draining (no API key needed)',
        security: [],
        responses: { '200': text('ready'), '503': text('not ready, with the reason') },
      },
    },
    '/metrics': { get: { summary: 'Prometheus metrics', responses: { '200': text('Prometheus text format') } } },
    [`${C}/memory`]: {
      get: {
        summary:
          "Strata's own: the collection's memory by part (codes, neighbour lists, vectors, labels, upper layers, code parameters, promotion pool, fresh vectors, each sparse and secondary vector, payload values, rows and indexes) and tier",
        parameters: [collectionName],
        responses: ok(
          'Bytes by part and tier',
          envelope({
            type: 'object',
            properties: {
              parts: {
                type: 'array',
                items: { type: 'object', properties: { part: { type: 'string' }, dram: { type: 'integer' }, cxl: { type: 'integer' } } },
              },
              total: { type: 'object', properties: { dram: { type: 'integer' }, cxl: { type: 'integer' } } },
            },
          }),
        ),
      },
    },
    [`${C}/tiers/history`]: {
      get: {
        summary: "Strata's own: the last five minutes of the collection's tier statistics, a sample a second, with the server's search QPS and latency",
        parameters: [collectionName],
        responses: ok(
          'Samples, oldest first',
          envelope({
            type: 'object',
            properties: {
              period_ms: { type: 'integer' },
              hottest_lists: {
                type: 'array',
                description: "The promotion pool's tenants (the lists the load visits most, in DRAM) by sampled read count, most first, at most 10",
                items: { type: 'object', properties: { point: ref('ExtendedPointId'), reads: { type: 'integer' } } },
              },
              samples: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    at: { type: 'integer', description: 'ms since the epoch' },
                    searches: { type: 'integer' },
                    dram_share: { type: ['number', 'null'], description: 'reads (neighbour lists, vectors, codes) served from DRAM over all reads' },
                    dram_bytes_per_s: { type: 'number' },
                    cxl_bytes_per_s: { type: 'number' },
                    pool_moves: { type: 'integer', description: 'lists moved into the promotion pool in the second' },
                    qps: { type: 'number', description: 'search requests of every collection and protocol' },
                    p50_ms: { type: ['number', 'null'] },
                    p99_ms: { type: ['number', 'null'] },
                  },
                },
              },
            },
          }),
        ),
      },
    },
    '/dashboard': { get: { summary: 'The dashboard (redirects to /dashboard/); no API key needed', responses: { '302': { description: 'To /dashboard/' } } } },
    '/dashboard/': {
      get: {
        summary: "The dashboard's page, built from dashboard/; no API key needed (the page asks for it before its API calls)",
        responses: { '200': { description: 'HTML' }, '404': errorResponse('The dashboard was not built (STRATA_ROUTE_NOT_FOUND).') },
      },
    },
    '/dashboard/assets/{file}': {
      get: {
        summary: "The dashboard's scripts and styles (content-hashed names, cached for a year)",
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'JavaScript or CSS' }, '404': errorResponse('No such file (STRATA_ROUTE_NOT_FOUND).') },
      },
    },
    '/openapi.json': {
      get: { summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
  };
  const paths: Obj = { ...readPaths };
  for (const [p, ops] of [...Object.entries(livePaths(C)), ...Object.entries(notServedPaths())]) paths[p] = { ...((paths[p] ?? {}) as Obj), ...(ops as Obj) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Strata query service',
      version: VERSION,
      description:
        `Qdrant-compatible REST API over tiered (DRAM / CXL) HNSW indexes built by \`strata build\`. ` +
        'Searches and reads always; with `strata serve --data-dir`, collection create/delete, point upsert/delete (by ids or filter), payload set/overwrite/delete/clear (by ids or filter), payload index create/delete, snapshots and compaction (durable before acknowledged); other Qdrant writes answer 405. ' +
        `Bodies are JSON or MessagePack (Content-Type ${MSGPACK}); answers are MessagePack when Accept asks for ${MSGPACK}. ` +
        `Limits: request body ${DEFAULT_BODY_LIMIT} bytes (--body-limit), answer ${DEFAULT_ANSWER_LIMIT} bytes counted as points × (${POINT_BYTES} + 4 × dim with vectors) (--answer-limit), ${DEFAULT_MAX_BATCH} searches per batch (--max-batch), limit + offset <= ${MAX_LIMIT}, hnsw_ef <= ${MAX_HNSW_EF}. ` +
        'Errors use Qdrant\'s envelope {"status": {"error": "..."}, "result": null, "time": t}. See docs/api.md.',
    },
    servers: [{ url: 'http://127.0.0.1:6333' }],
    security: [{}, { apiKey: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'api-key',
          description: 'Required on every route but the health endpoints (/livez, /healthz, /readyz) when the server runs with a key.',
        },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: schemas(),
    },
    paths,
  };
}
