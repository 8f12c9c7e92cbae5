// Snapshots of a writable collection: list, create, download, delete, and restore one from a file
// (uploaded as the snapshot's bytes).
import { useState } from 'preact/hooks';
import { call, download, upload } from '../api';
import { bytes } from '../format';
import type { Snapshot } from '../types';
import { act, ErrorBox, Grid, useLoad } from '../ui';

export function SnapshotsPage({ name, onNeedsKey }: { name: string; onNeedsKey: () => void }) {
  const path = `/collections/${encodeURIComponent(name)}/snapshots`;
  const list = useLoad(() => call<Snapshot[]>('GET', path), [name], onNeedsKey);
  const [error, setError] = useState<string | null>(null);
  const [restored, setRestored] = useState<string | null>(null);
  const create = () => act(() => call('POST', path), setError, onNeedsKey).then(list.reload);
  const remove = (s: Snapshot) => act(() => call('DELETE', `${path}/${encodeURIComponent(s.name)}`), setError, onNeedsKey).then(list.reload);
  const save = (s: Snapshot) =>
    act(
      async () => {
        const blob = await download(`${path}/${encodeURIComponent(s.name)}`);
        const a = document.createElement('a');
        a.href = URL.createObjectURL(blob);
        a.download = s.name;
        a.click();
        URL.revokeObjectURL(a.href);
      },
      setError,
      onNeedsKey,
    );
  const restore = (file: File) =>
    act(
      async () => {
        await upload(`${path}/upload`, file);
        setRestored(file.name);
      },
      setError,
      onNeedsKey,
    ).then(list.reload);
  return (
    <div>
      <h1>Snapshots of {name}</h1>
      <div class="form">
        <button type="button" onClick={create}>
          Create a snapshot
        </button>
        <label>
          Restore from a snapshot file
          <input
            type="file"
            name="restore"
            onChange={(e) => (e.target as HTMLInputElement).files?.[0] && void restore((e.target as HTMLInputElement).files![0]!)}
          />
        </label>
      </div>
      {restored && (
        <p role="status">
          Restored {name} from {restored}.
        </p>
      )}
      <ErrorBox error={error ?? list.error} />
      {list.value && (
        <Grid head={['name', 'created', 'size', 'actions']} testid="snapshots">
          {list.value.map((s) => (
            <tr key={s.name} data-snapshot={s.name}>
              <td>{s.name}</td>
              <td>{s.creation_time}</td>
              <td class="num">{bytes(s.size)}</td>
              <td class="actions">
                <button type="button" onClick={() => save(s)}>
                  Download
                </button>
                <button type="button" onClick={() => remove(s)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </Grid>
      )}
    </div>
  );
}
