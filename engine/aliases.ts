// Collection aliases, as Qdrant has them: another name for a collection, usable wherever a
// collection name is, so that an application can be switched to a rebuilt collection in one step.
// A batch of actions is checked whole, then applied and written at once (a durable replace of the
// data directory's aliases file): a crash leaves the old set or the new one. An alias never shares a
// name with a collection, and a collection's aliases go with it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from '../common/durable-fs.js';
import { invalidArgument, quoted, readOnly, StrataError } from '../common/errors.js';
import { checkCollectionName } from './collection-name.js';

export const ALIASES_FILE = 'aliases.json';

export type AliasAction =
  | { readonly create: { readonly alias: string; readonly collection: string } }
  | { readonly delete: { readonly alias: string } }
  | { readonly rename: { readonly from: string; readonly to: string } };

export class Aliases {
  private readonly byAlias = new Map<string, string>();

  /** The aliases of a data directory (none without one: a server without one takes no alias writes). */
  constructor(private readonly dataDir: string | null) {
    const file = dataDir === null ? null : join(dataDir, ALIASES_FILE);
    if (file === null || !existsSync(file)) return;
    let pairs: unknown;
    try {
      pairs = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: not the aliases file Strata writes (${(e as Error).message})`, { file });
    }
    if (!Array.isArray(pairs)) throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: not a list of [alias, collection] pairs`, { file });
    for (const p of pairs) {
      if (!Array.isArray(p) || typeof p[0] !== 'string' || typeof p[1] !== 'string')
        throw new StrataError('STRATA_INDEX_CORRUPT', `${file}: not a list of [alias, collection] pairs`, { file });
      this.byAlias.set(p[0], p[1]);
    }
  }

  /** The collection an alias names, or undefined. */
  target(alias: string): string | undefined {
    return this.byAlias.get(alias);
  }

  /** Every alias with its collection, by alias name (`collection` given: only that collection's). */
  list(collection?: string): Array<{ alias_name: string; collection_name: string }> {
    return [...this.byAlias]
      .filter(([, c]) => collection === undefined || c === collection)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([alias_name, collection_name]) => ({ alias_name, collection_name }));
  }

  /**
   * Applies actions in order, all or none: `exists` says whether a collection of a name exists. A
   * create of an alias that exists moves it (as Qdrant does); a delete or rename of one that does
   * not is STRATA_ALIAS_NOT_FOUND.
   */
  apply(actions: readonly AliasAction[], exists: (name: string) => boolean): void {
    if (this.dataDir === null) throw readOnly('this server', 'no-data-dir', 'start it with --data-dir to keep aliases', { allow: 'GET' });
    const next = new Map(this.byAlias);
    actions.forEach((a, i) => {
      const at = `actions[${i}]`;
      if ('create' in a) {
        const { alias, collection } = a.create;
        checkCollectionName(alias, `${at}.create_alias.alias_name`);
        if (exists(alias)) throw invalidArgument(`${at}.create_alias.alias_name`, `${quoted(alias)} is a collection's name`);
        if (!exists(collection))
          throw new StrataError('STRATA_COLLECTION_NOT_FOUND', `collection ${quoted(collection)} not found`, { collection: collection.slice(0, 64) });
        next.set(alias, collection);
      } else if ('delete' in a) {
        if (!next.delete(a.delete.alias)) throw aliasNotFound(a.delete.alias);
      } else {
        const { from, to } = a.rename;
        const c = next.get(from);
        if (c === undefined) throw aliasNotFound(from);
        checkCollectionName(to, `${at}.rename_alias.new_alias_name`);
        if (exists(to)) throw invalidArgument(`${at}.rename_alias.new_alias_name`, `${quoted(to)} is a collection's name`);
        next.delete(from);
        next.set(to, c);
      }
    });
    this.commit(next);
  }

  /** A collection is gone: its aliases go too. */
  dropCollection(collection: string): void {
    const next = new Map([...this.byAlias].filter(([, c]) => c !== collection));
    if (next.size !== this.byAlias.size) this.commit(next);
  }

  private commit(next: Map<string, string>): void {
    if (this.dataDir !== null) writeFileDurably(join(this.dataDir, ALIASES_FILE), `${JSON.stringify([...next])}\n`);
    this.byAlias.clear();
    for (const [a, c] of next) this.byAlias.set(a, c);
  }
}

function aliasNotFound(alias: string): StrataError {
  return new StrataError('STRATA_ALIAS_NOT_FOUND', `alias ${quoted(alias)} not found`, { alias: alias.slice(0, 64) });
}
