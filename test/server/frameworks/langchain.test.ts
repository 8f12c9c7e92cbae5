// LangChain.js's Qdrant store (@langchain/qdrant, on the official REST client) against a real
// `strata serve --data-dir`, unchanged: a store made from texts, similarity search with and without
// a metadata filter, maximal marginal relevance, and deletes by id and by filter. The answers are
// checked against what the texts hold, not against Strata's own output.
import { Embeddings } from '@langchain/core/embeddings';
import { Document } from '@langchain/core/documents';
import { QdrantVectorStore } from '@langchain/qdrant';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../../helpers/temp.js';
import { type ServeChild, serveChild } from '../serve-child.js';
import { embedText } from './hashed-embedding.js';

class HashedEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map(embedText));
  }
  embedQuery(text: string): Promise<number[]> {
    return Promise.resolve(embedText(text));
  }
}

const TOPICS = ['cats', 'rockets', 'bread', 'rivers'] as const;
/** Ten texts per topic, each naming its topic and a number; metadata: topic, number and a year. */
const texts: string[] = [];
const metadatas: Array<{ topic: string; n: number; year: number }> = [];
for (const topic of TOPICS)
  for (let n = 0; n < 10; n++) {
    texts.push(`${topic} ${topic} note ${n} about ${topic}`);
    metadatas.push({ topic, n, year: 2000 + n });
  }

let tmp: TempDir;
let s: ServeChild;
let store: QdrantVectorStore;
const embeddings = new HashedEmbeddings();

beforeAll(async () => {
  tmp = makeTempDir('strata-langchain-');
  s = await serveChild(['--data-dir', tmp.path('data'), '--no-grpc', '--log-level', 'silent']);
  store = await QdrantVectorStore.fromTexts(texts, metadatas, embeddings, { url: s.rest, collectionName: 'notes' });
}, 60_000);

afterAll(async () => {
  s?.child.kill('SIGKILL');
  await s?.exited;
  tmp?.cleanup();
});

const topicOf = (d: Document): string => (d.metadata as { topic: string }).topic;

describe('LangChain QdrantVectorStore on strata serve', () => {
  it('creates the collection from texts with their metadata, UUID ids and cosine vectors', async () => {
    const info = await store.client.getCollection('notes');
    expect(info.points_count).toBe(texts.length);
    expect(info.config.params.vectors).toMatchObject({ size: 64, distance: 'Cosine' });
    const page = await store.client.scroll('notes', { limit: 100, with_payload: true });
    expect(page.points.map((p) => (p.payload as { content: string }).content).sort()).toEqual([...texts].sort());
    expect(page.points.every((p) => /^[0-9a-f-]{36}$/.test(String(p.id)))).toBe(true);
  });

  it('finds the texts of the topic asked for, with their metadata and scores in order', async () => {
    for (const topic of TOPICS) {
      const hits = await store.similaritySearchWithScore(`${topic}`, 5);
      expect(hits).toHaveLength(5);
      expect(hits.map(([d]) => topicOf(d))).toEqual(new Array(5).fill(topic));
      for (const [d] of hits) expect(d.pageContent).toContain(topic);
      const scores = hits.map(([, score]) => score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    }
  });

  it('filters by metadata: only matching documents come back, as many as asked', async () => {
    const filter = {
      must: [
        { key: 'metadata.topic', match: { value: 'bread' } },
        { key: 'metadata.year', range: { gte: 2005 } },
      ],
    };
    // A query about rockets, filtered to bread from 2005 on: the filter decides, not the similarity.
    const hits = await store.similaritySearch('rockets', 10, filter);
    expect(hits.map((d) => d.metadata).sort((a, b) => a.n - b.n)).toEqual(metadatas.filter((m) => m.topic === 'bread' && m.year >= 2005));
    const none = await store.similaritySearch('rockets', 3, { must: [{ key: 'metadata.topic', match: { value: 'volcanoes' } }] });
    expect(none).toEqual([]);
  });

  it('runs maximal marginal relevance searches: the best match first, then ones unlike it', async () => {
    // Ten near-duplicate texts per topic: a plain search for "cats" answers only cats.
    expect((await store.similaritySearch('cats', 4)).map(topicOf)).toEqual(['cats', 'cats', 'cats', 'cats']);
    // LangChain sends its lambda as Qdrant's diversity: at 0.9 the picks after the first leave the duplicates.
    const diverse = await store.maxMarginalRelevanceSearch('cats', { k: 4, fetchK: 40, lambda: 0.9 });
    expect(diverse).toHaveLength(4);
    expect(topicOf(diverse[0]!)).toBe('cats');
    expect(
      diverse
        .slice(1)
        .map(topicOf)
        .filter((t) => t !== 'cats').length,
    ).toBeGreaterThan(0);
    // At 0 relevance alone decides: the duplicates again.
    const relevant = await store.maxMarginalRelevanceSearch('cats', { k: 4, fetchK: 40, lambda: 0 });
    expect(relevant.map(topicOf)).toEqual(['cats', 'cats', 'cats', 'cats']);
    const filtered = await store.maxMarginalRelevanceSearch('cats', {
      k: 3,
      fetchK: 10,
      lambda: 0.5,
      filter: { must: [{ key: 'metadata.topic', match: { value: 'rivers' } }] },
    });
    expect(filtered.map(topicOf)).toEqual(['rivers', 'rivers', 'rivers']);
  });

  it('adds documents with ids, and deletes by id and by filter', async () => {
    const ids = ['6f1c2b9e-3a4d-4e5f-8a7b-1c2d3e4f5a6b', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'];
    await store.addDocuments(
      [
        new Document({ pageContent: 'volcanoes erupt', metadata: { topic: 'volcanoes' } }),
        new Document({ pageContent: 'volcanoes sleep', metadata: { topic: 'volcanoes' } }),
      ],
      { ids },
    );
    expect((await store.similaritySearch('volcanoes', 2)).map((d) => d.pageContent).sort()).toEqual(['volcanoes erupt', 'volcanoes sleep']);
    await store.delete({ ids: [ids[0]!] });
    expect(
      (await store.similaritySearch('volcanoes', 2, { must: [{ key: 'metadata.topic', match: { value: 'volcanoes' } }] })).map((d) => d.pageContent),
    ).toEqual(['volcanoes sleep']);
    await store.delete({ filter: { must: [{ key: 'metadata.topic', match: { value: 'cats' } }] } });
    const left = await store.client.count('notes', { exact: true });
    expect(left.count).toBe(texts.length - 10 + 1);
    expect((await store.similaritySearch('cats', 5)).map(topicOf)).not.toContain('cats');
  });
});
