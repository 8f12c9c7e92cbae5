// The dashboard: a page per hash route (#/collections, #/points/<c>, #/search/<c>, #/tiers/<c>,
// #/quality/<c>, #/snapshots/<c>), a collection picker, and the API-key prompt that appears when the
// server answers 401.
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { apiKey, call, NeedsKey, setApiKey } from './api';
import { CollectionsPage } from './pages/collections';
import { PointsPage } from './pages/points';
import { QualityPage } from './pages/quality';
import { SearchPage } from './pages/search';
import { SnapshotsPage } from './pages/snapshots';
import { TiersPage } from './pages/tiers';
import './style.css';

const PAGES = [
  ['collections', 'Collections'],
  ['points', 'Points'],
  ['search', 'Search'],
  ['tiers', 'Tiers, live'],
  ['quality', 'Search quality'],
  ['snapshots', 'Snapshots'],
] as const;
type Page = (typeof PAGES)[number][0];

interface Route {
  page: Page;
  collection: string | null;
  query: URLSearchParams;
}

function routeOf(hash: string): Route {
  const [path = '', q = ''] = hash.replace(/^#\/?/, '').split('?');
  const [page, collection] = path.split('/');
  const known = PAGES.some(([p]) => p === page);
  return { page: known ? (page as Page) : 'collections', collection: collection ? decodeURIComponent(collection) : null, query: new URLSearchParams(q) };
}

function KeyPrompt({ onKey }: { onKey: () => void }) {
  const [key, setKey] = useState('');
  return (
    <form
      class="key"
      onSubmit={(e) => {
        e.preventDefault();
        setApiKey(key);
        onKey();
      }}
    >
      <p>This server needs its API key. It is kept in this browser tab only.</p>
      <label>
        API key
        <input name="api-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Use key</button>
    </form>
  );
}

function App() {
  const [route, setRoute] = useState(routeOf(location.hash));
  const [names, setNames] = useState<string[] | null>(null);
  const [needsKey, setNeedsKey] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const onNeedsKey = useCallback(() => setNeedsKey(true), []);
  useEffect(() => {
    const f = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', f);
    return () => removeEventListener('hashchange', f);
  }, []);
  // Listed again on every move between pages: collections are created and deleted over the API meanwhile.
  useEffect(() => {
    call<{ collections: Array<{ name: string }> }>('GET', '/collections').then(
      (r) => {
        setNames(r.collections.map((c) => c.name));
        setNeedsKey(false);
        setError(null);
      },
      (e: unknown) => {
        if (e instanceof NeedsKey) setNeedsKey(true);
        else setError(e instanceof Error ? e.message : String(e));
      },
    );
  }, [generation, route.page]);
  const collection = route.collection ?? names?.[0] ?? null;
  const go = (page: Page, c: string | null) => {
    location.hash = c === null || page === 'collections' ? `#/${page}` : `#/${page}/${encodeURIComponent(c)}`;
  };
  let body = null;
  if (needsKey) body = <KeyPrompt onKey={() => setGeneration((g) => g + 1)} />;
  else if (names === null) body = error ? <p class="error">{error}</p> : <p>Loading…</p>;
  else if (route.page === 'collections') body = <CollectionsPage key={generation} names={names} onNeedsKey={onNeedsKey} />;
  else if (collection === null) body = <p>No collections.</p>;
  else {
    const props = { key: `${collection}-${generation}`, name: collection, onNeedsKey };
    if (route.page === 'points') body = <PointsPage {...props} />;
    else if (route.page === 'search') body = <SearchPage {...props} startId={route.query.get('id')} />;
    else if (route.page === 'tiers') body = <TiersPage {...props} />;
    else if (route.page === 'quality') body = <QualityPage {...props} />;
    else body = <SnapshotsPage {...props} />;
  }
  return (
    <>
      <header>
        <strong>Strata</strong>
        <nav aria-label="pages">
          {PAGES.map(([p, label]) => (
            <a
              key={p}
              href={p === 'collections' || collection === null ? `#/${p}` : `#/${p}/${encodeURIComponent(collection)}`}
              aria-current={route.page === p ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        {names && names.length > 0 && route.page !== 'collections' && (
          <label class="picker">
            Collection
            <select value={collection ?? ''} onChange={(e) => go(route.page, (e.target as HTMLSelectElement).value)}>
              {names.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        )}
        {apiKey() && (
          <button
            type="button"
            class="link"
            onClick={() => {
              sessionStorage.clear();
              setGeneration((g) => g + 1);
            }}
          >
            Forget key
          </button>
        )}
      </header>
      <main>{body}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
