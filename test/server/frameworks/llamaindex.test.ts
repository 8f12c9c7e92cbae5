// LlamaIndex's Qdrant store (@llamaindex/qdrant, on the official REST client) against a real
// `strata serve --data-dir`, unchanged: nodes with embeddings added (the collection created on the
// way), queries by embedding with and without metadata filters (each operator LlamaIndex maps onto
// Qdrant's filter), and deleting a source document's nodes. Answers are checked against the nodes'
// own texts and metadata.
import { BaseEmbedding } from '@llamaindex/core/embeddings';
import { type BaseNode, MetadataMode, NodeRelationship, TextNode } from '@llamaindex/core/schema';
import { FilterCondition, FilterOperator, type MetadataFilters, VectorStoreQueryMode } from '@llamaindex/core/vector-store';
import { QdrantVectorStore } from '@llamaindex/qdrant';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../../helpers/temp.js';
import { type ServeChild, serveChild } from '../serve-child.js';
import { embedText } from './hashed-embedding.js';

/** LlamaIndex's embedding interface over the hashed embedding: the store asks for one. */
class HashedEmbedding extends BaseEmbedding {
  // biome-ignore lint/complexity/noUselessConstructor: BaseEmbedding's own constructor is protected.
  constructor() {
    super();
  }
  getTextEmbedding(text: string): Promise<number[]> {
    return Promise.resolve(embedText(text));
  }
}

const TOPICS = ['cats', 'rockets', 'bread', 'rivers'] as const;

interface Meta {
  topic: string;
  n: number;
  tag: string;
}

/** Eight nodes per topic, each from the source document of its topic. */
const nodes: TextNode<Meta>[] = [];
for (const topic of TOPICS)
  for (let n = 0; n < 8; n++) {
    const text = `${topic} ${topic} passage ${n} on ${topic}`;
    const metadata: Meta = { topic, n, tag: n % 2 === 0 ? 'even' : 'odd' };
    const node = new TextNode<Meta>({ text, embedding: embedText(text), metadata });
    node.relationships = { [NodeRelationship.SOURCE]: { nodeId: `doc-${topic}`, metadata } };
    nodes.push(node);
  }

let tmp: TempDir;
let s: ServeChild;
let store: QdrantVectorStore;

beforeAll(async () => {
  tmp = makeTempDir('strata-llamaindex-');
  s = await serveChild(['--data-dir', tmp.path('data'), '--no-grpc', '--log-level', 'silent']);
  store = new QdrantVectorStore({ url: s.rest, collectionName: 'passages', embedModel: new HashedEmbedding() });
  await store.add(nodes);
}, 60_000);

afterAll(async () => {
  s?.child.kill('SIGKILL');
  await s?.exited;
  tmp?.cleanup();
});

const metaOf = (n: BaseNode): Meta => n.metadata as Meta;

async function query(text: string, k: number, filters?: MetadataFilters): Promise<{ nodes: BaseNode[]; similarities: number[] }> {
  const r = await store.query({ queryEmbedding: embedText(text), similarityTopK: k, mode: VectorStoreQueryMode.DEFAULT, ...(filters ? { filters } : {}) });
  return { nodes: r.nodes ?? [], similarities: r.similarities };
}

describe('LlamaIndex QdrantVectorStore on strata serve', () => {
  it('adds nodes with their embeddings into a Cosine collection it creates', async () => {
    const info = await store.client().getCollection('passages');
    expect(info.points_count).toBe(nodes.length);
    expect(info.config.params.vectors).toMatchObject({ size: 64, distance: 'Cosine' });
  });

  it('answers a query by embedding with the nodes of the topic, their texts and metadata intact', async () => {
    for (const topic of TOPICS) {
      const r = await query(topic, 4);
      expect(r.nodes.map((n) => metaOf(n).topic)).toEqual([topic, topic, topic, topic]);
      for (const n of r.nodes) expect(n.getContent(MetadataMode.NONE)).toContain(`${topic} passage`);
      expect([...r.similarities].sort((a, b) => b - a)).toEqual(r.similarities);
    }
  });

  it('filters by metadata with each operator LlamaIndex maps onto Qdrant', async () => {
    const cases: Array<[MetadataFilters, (m: Meta) => boolean]> = [
      [{ filters: [{ key: 'topic', value: 'bread', operator: FilterOperator.EQ }] }, (m) => m.topic === 'bread'],
      [{ filters: [{ key: 'n', value: 3, operator: FilterOperator.EQ }] }, (m) => m.n === 3],
      [{ filters: [{ key: 'n', value: 2, operator: FilterOperator.LT }] }, (m) => m.n < 2],
      [{ filters: [{ key: 'n', value: 6, operator: FilterOperator.GTE }] }, (m) => m.n >= 6],
      [{ filters: [{ key: 'topic', value: ['cats', 'rivers'], operator: FilterOperator.IN }] }, (m) => m.topic === 'cats' || m.topic === 'rivers'],
      [{ filters: [{ key: 'topic', value: ['cats', 'rockets', 'bread'], operator: FilterOperator.NIN }] }, (m) => m.topic === 'rivers'],
      [{ filters: [{ key: 'topic', value: 'cats', operator: FilterOperator.NE }] }, (m) => m.topic !== 'cats'],
      [
        {
          filters: [
            { key: 'topic', value: 'rockets', operator: FilterOperator.EQ },
            { key: 'tag', value: 'odd', operator: FilterOperator.EQ },
          ],
          condition: FilterCondition.AND,
        },
        (m) => m.topic === 'rockets' && m.tag === 'odd',
      ],
      [
        {
          filters: [
            { key: 'n', value: 0, operator: FilterOperator.EQ },
            { key: 'n', value: 7, operator: FilterOperator.EQ },
          ],
          condition: FilterCondition.OR,
        },
        (m) => m.n === 0 || m.n === 7,
      ],
    ];
    for (const [filters, keep] of cases) {
      const want = nodes.filter((n) => keep(metaOf(n))).length;
      // Asked about cats, whatever the filter: the answer holds every match and nothing else.
      const r = await query('cats', 32, filters);
      expect(r.nodes).toHaveLength(want);
      for (const n of r.nodes) expect(keep(metaOf(n))).toBe(true);
    }
  });

  it("deletes a source document's nodes by its id", async () => {
    await store.delete('doc-bread');
    const left = await store.client().count('passages', { exact: true });
    expect(left.count).toBe(nodes.length - 8);
    expect((await query('bread', 8)).nodes.map((n) => metaOf(n).topic)).not.toContain('bread');
  });
});
