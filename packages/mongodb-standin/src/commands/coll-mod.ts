/**
 * `collMod`, for the one option the stand-in keeps per collection: `changeStreamPreAndPostImages:
 * { enabled }` (writes from then on record pre- and post-images for change streams). Every
 * other collMod option (validators, TTL and index changes, views) is refused by name.
 */
import { collectionNameOf, CommandDefinition } from './context';
import { CommandError, ErrorCode } from '../engine/errors';
import { Document, isPlainDocument } from '../engine/values';

/** The `enabled` flag of a changeStreamPreAndPostImages option (create and collMod). */
export function preAndPostImagesOption(value: unknown): boolean {
  if (
    !isPlainDocument(value) ||
    typeof value.enabled !== 'boolean' ||
    Object.keys(value).length !== 1
  )
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'changeStreamPreAndPostImages' must be an object with one boolean field 'enabled'",
    );
  return value.enabled;
}

export const collMod: CommandDefinition = {
  name: 'collMod',
  fields: ['changeStreamPreAndPostImages'],
  run(command: Document, { server, database }) {
    const name = collectionNameOf(command, 'collMod');
    const collection = server.store.get(database, name);
    if (!collection)
      throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${database}.${name}`);
    if (command.changeStreamPreAndPostImages !== undefined) {
      const enabled = preAndPostImagesOption(command.changeStreamPreAndPostImages);
      if (enabled !== collection.preAndPostImages) collection.setPreAndPostImages(enabled);
    }
    return { ok: 1 };
  },
};
