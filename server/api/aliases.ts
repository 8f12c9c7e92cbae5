// Qdrant's alias update body: {actions: [{create_alias: {collection_name, alias_name}} |
// {delete_alias: {alias_name}} | {rename_alias: {old_alias_name, new_alias_name}}]}, each checked
// here, naming its field; the engine applies them all or none.
import { invalidArgument } from '../../common/errors.js';
import type { AliasAction } from '../../engine/public.js';
import { arrayAt, type Fields, objectAt, onlyMembers, optionalString } from './fields.js';

/** Most actions in one alias update. */
export const MAX_ALIAS_ACTIONS = 100;

function nameAt(o: Fields, key: string, at: string): string {
  const v = optionalString(o[key], `${at}.${key}`);
  if (v === undefined || v === '') throw invalidArgument(`${at}.${key}`, 'required: a name');
  return v;
}

export function parseAliasActions(body: Fields): AliasAction[] {
  return arrayAt(body['actions'], 'actions', MAX_ALIAS_ACTIONS).map((raw, i) => {
    const a = objectAt(raw, `actions[${i}]`);
    const keys = Object.keys(a);
    if (keys.length !== 1) throw invalidArgument(`actions[${i}]`, `must hold exactly one of create_alias, delete_alias, rename_alias, got ${keys.length}`);
    const kind = keys[0]!;
    const at = `actions[${i}].${kind}`;
    const o = objectAt(a[kind], at);
    switch (kind) {
      case 'create_alias':
        onlyMembers(o, ['collection_name', 'alias_name'], at, 'in create_alias');
        return { create: { collection: nameAt(o, 'collection_name', at), alias: nameAt(o, 'alias_name', at) } };
      case 'delete_alias':
        onlyMembers(o, ['alias_name'], at, 'in delete_alias');
        return { delete: { alias: nameAt(o, 'alias_name', at) } };
      case 'rename_alias':
        onlyMembers(o, ['old_alias_name', 'new_alias_name'], at, 'in rename_alias');
        return { rename: { from: nameAt(o, 'old_alias_name', at), to: nameAt(o, 'new_alias_name', at) } };
      default:
        throw invalidArgument(at, 'is not an alias action (create_alias, delete_alias, rename_alias)');
    }
  });
}
