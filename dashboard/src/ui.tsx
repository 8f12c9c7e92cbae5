// Small pieces every page uses: a data loader with its error shown in the page, the error box,
// and a table of label/value rows.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { NeedsKey } from './api';

/** Loads `fetcher`'s value when `deps` change; `reload` asks again. A NeedsKey goes to `onNeedsKey`. */
export function useLoad<T>(fetcher: () => Promise<T>, deps: unknown[], onNeedsKey: () => void): { value: T | null; error: string | null; reload: () => void } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    fetcher().then(
      (v) => {
        if (!live) return;
        setValue(v);
        setError(null);
      },
      (e: unknown) => {
        if (!live) return;
        if (e instanceof NeedsKey) onNeedsKey();
        else setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { value, error, reload };
}

export function ErrorBox({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

/** A table with a header row of `head` and the rows given. */
export function Grid({ head, testid, children }: { head: string[]; testid?: string; children: ComponentChildren }) {
  return (
    <table class="grid" data-testid={testid}>
      <thead>
        <tr>
          {head.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

export function Fields({ rows }: { rows: Array<[string, ComponentChildren]> }) {
  return (
    <table class="fields">
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Runs an action, reporting its failure in the page (and a NeedsKey to the key prompt). */
export async function act(f: () => Promise<unknown>, setError: (e: string | null) => void, onNeedsKey: () => void): Promise<boolean> {
  try {
    await f();
    setError(null);
    return true;
  } catch (e) {
    if (e instanceof NeedsKey) onNeedsKey();
    else setError(e instanceof Error ? e.message : String(e));
    return false;
  }
}
