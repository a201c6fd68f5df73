/**
 * Relay's `node(id:)` and `nodes(ids:)`: which object an id names, read as the field it stands for.
 *
 * The id scheme (schema.graphql, `Node`): a user's id is the decimal string of its `_id`, a
 * sequence's starts with a letter, so the first character tells the type and ids need no encoding
 * (they are the ids of 0.3). Each id is authorized as the field it stands for (`user`,
 * `sequence`, by their rows in src/auth) and answered exactly as that field answers it: null when
 * there is none or it is not the caller's, BAD_USER_INPUT when malformed.
 */
import { authorize, requiredRole, sequenceAccess } from '../auth/index';
import { BadUserInputError } from '../errors';
import { NODES_PER_LIST } from '../limits';
import type { SequenceState } from '../sequences/index';
import { requireUserId, type User } from '../users/index';
import type { GraphQLContext } from './context';

export type NodeSource = User | SequenceState;

/** The object `id` names, read as `user(id:)` or `sequence` would read it. */
export function nodeById(
  id: string,
  context: GraphQLContext,
  field = 'id',
): Promise<NodeSource | null> {
  const first = id.charAt(0);
  if (first >= '0' && first <= '9') {
    authorize(context.caller, requiredRole('Query', 'user'), 'node (a user)');
    return context.userLoader.load(requireUserId(id, field));
  }
  if (/^[A-Za-z]$/.test(first)) {
    authorize(context.caller, requiredRole('Query', 'sequence'), 'node (a sequence)');
    return context.sequences.getById(id, sequenceAccess(context.caller), field);
  }
  throw new BadUserInputError(
    `${field} must be the id of a User (digits, like "42") or a Sequence (a name, like "invoice/acme").`,
    { field },
  );
}

/** `nodes(ids:)`: each as `nodeById`, in order; at most NODES_PER_LIST ids. */
export function nodesByIds(
  ids: readonly string[],
  context: GraphQLContext,
): Promise<Array<NodeSource | null>> {
  if (ids.length > NODES_PER_LIST) {
    throw new BadUserInputError(`ids holds at most ${NODES_PER_LIST} ids.`, { field: 'ids' });
  }
  return Promise.all(ids.map((id, index) => nodeById(id, context, `ids.${index}`)));
}

/** The GraphQL type of a node source (a sequence's state has `next`, a user never has). */
export function nodeType(source: NodeSource): 'User' | 'Sequence' {
  return 'next' in source ? 'Sequence' : 'User';
}
