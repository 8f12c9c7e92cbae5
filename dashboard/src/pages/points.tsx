// Points: scroll a collection (with a filter), view and edit a point's payload (overwritten as
// given), delete it, or search for points like it.
import { useState } from 'preact/hooks';
import { call } from '../api';
import type { Record_ } from '../types';
import { act, ErrorBox, Grid, useLoad } from '../ui';

interface Props {
  name: string;
  onNeedsKey: () => void;
}

function PointRow({ name, p, onChanged, onNeedsKey }: { name: string; p: Record_; onChanged: () => void; onNeedsKey: () => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(JSON.stringify(p.payload ?? {}, null, 1));
  const [error, setError] = useState<string | null>(null);
  const path = `/collections/${encodeURIComponent(name)}`;
  const save = async () => {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      setError('the payload is not JSON');
      return;
    }
    if (await act(() => call('PUT', `${path}/points/payload?wait=true`, { payload, points: [p.id] }), setError, onNeedsKey)) {
      setEditing(false);
      onChanged();
    }
  };
  const remove = async () => {
    if (await act(() => call('POST', `${path}/points/delete?wait=true`, { points: [p.id] }), setError, onNeedsKey)) onChanged();
  };
  return (
    <tr data-point={String(p.id)}>
      <td class="num">{String(p.id)}</td>
      <td>
        {editing ? (
          <textarea aria-label={`payload of ${p.id}`} rows={4} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
        ) : (
          <code data-testid="payload">{JSON.stringify(p.payload)}</code>
        )}
        <ErrorBox error={error} />
      </td>
      <td class="actions">
        {editing ? (
          <button type="button" onClick={save}>
            Save
          </button>
        ) : (
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        <button type="button" onClick={remove}>
          Delete
        </button>
        <a href={`#/search/${encodeURIComponent(name)}?id=${encodeURIComponent(String(p.id))}`}>Find similar</a>
      </td>
    </tr>
  );
}

export function PointsPage({ name, onNeedsKey }: Props) {
  const [filterText, setFilterText] = useState('');
  const [filter, setFilter] = useState<unknown>(undefined);
  const [offset, setOffset] = useState<number | string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const page = useLoad(
    () =>
      call<{ points: Record_[]; next_page_offset: number | string | null }>('POST', `/collections/${encodeURIComponent(name)}/points/scroll`, {
        limit: 20,
        with_payload: true,
        ...(offset !== null ? { offset } : {}),
        ...(filter !== undefined ? { filter } : {}),
      }),
    [name, offset, JSON.stringify(filter)],
    onNeedsKey,
  );
  const apply = () => {
    if (filterText.trim() === '') {
      setFilter(undefined);
      setError(null);
    } else
      try {
        setFilter(JSON.parse(filterText));
        setError(null);
      } catch {
        setError('the filter is not JSON');
        return;
      }
    setOffset(null);
  };
  return (
    <div>
      <h1>Points of {name}</h1>
      <div class="form">
        <label>
          Filter (Qdrant's JSON)
          <textarea
            rows={2}
            value={filterText}
            placeholder='{"must": [{"key": "colour", "match": {"value": "gold"}}]}'
            onInput={(e) => setFilterText((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <button type="button" onClick={apply}>
          Scroll
        </button>
      </div>
      <ErrorBox error={error ?? page.error} />
      {page.value && (
        <>
          <Grid head={['id', 'payload', 'actions']} testid="points">
            {page.value.points.map((p) => (
              <PointRow key={String(p.id)} name={name} p={p} onChanged={page.reload} onNeedsKey={onNeedsKey} />
            ))}
          </Grid>
          {page.value.next_page_offset !== null && (
            <button type="button" onClick={() => setOffset(page.value!.next_page_offset)}>
              Next page
            </button>
          )}
        </>
      )}
    </div>
  );
}
