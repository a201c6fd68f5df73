/**
 * Turning client input into values that are safe to store, before anything touches the database.
 *
 * Invariants: runs before any id is taken, so refused input never consumes a counter value; every
 * refusal is a `BadUserInputError` naming its field with a message a person can act on. The output
 * holds only the known fields, as plain strings and numbers: no key of the client's object and no
 * `$`-operator can reach a MongoDB filter or document. `inputHash` fingerprints what the user asked
 * for (name, email, inviter) and not how (the strategy): retrying the same request with another
 * strategy is still the same request.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { BadUserInputError } from '../errors.js';
import type { CreateUserInput } from './model.js';

export interface NormalizedUserInput {
  name: string;
  /** Lowercased, so `Ann@Example.com` and `ann@example.com` are one address for the unique index. */
  email?: string;
  invitedById?: number;
  idempotencyKey?: string;
}

const MAX_NAME_CHARACTERS = 100;
const MAX_EMAIL_CHARACTERS = 254;
const MAX_IDEMPOTENCY_KEY_CHARACTERS = 128;
const CONTROL_CHARACTER = /\p{Cc}/u;
const POSITIVE_DECIMAL = /^[1-9][0-9]{0,15}$/;

/** Characters as a person counts them (code points), not UTF-16 units. */
const characters = (text: string) => [...text].length;

const nameSchema = z
  .string({
    error: (issue) => (issue.input === undefined ? 'Name is required.' : 'Name must be text.'),
  })
  .trim()
  .refine((name) => characters(name) >= 1, 'Name must not be empty.')
  .refine(
    (name) => characters(name) <= MAX_NAME_CHARACTERS,
    `Name must be at most ${MAX_NAME_CHARACTERS} characters.`,
  )
  .refine((name) => !CONTROL_CHARACTER.test(name), 'Name must not contain control characters.');

const emailSchema = z
  .string({ error: 'Email must be text.' })
  .trim()
  .max(MAX_EMAIL_CHARACTERS, `Email must be at most ${MAX_EMAIL_CHARACTERS} characters.`)
  .transform((email) => email.toLowerCase())
  .pipe(z.union([z.literal(''), z.email('Enter a valid email address, like ann@example.com.')]))
  .nullish()
  .transform((email) => email || undefined);

/** A user id as a client sends it: the decimal string of a positive integer up to 2^53 - 1. */
export function parseUserId(id: string): number | null {
  if (!POSITIVE_DECIMAL.test(id)) return null;
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : null;
}

const invitedByIdSchema = z
  .string({ error: 'Inviter id must be text.' })
  .transform((id, context) => {
    const value = parseUserId(id);
    if (value === null) {
      context.addIssue({ code: 'custom', message: 'Inviter id must be a positive whole number.' });
      return z.NEVER;
    }
    return value;
  })
  .nullish()
  .transform((id) => id ?? undefined);

const idempotencyKeySchema = z
  .string({ error: 'Idempotency key must be text.' })
  .refine((key) => characters(key) >= 1, 'Idempotency key must not be empty.')
  .refine(
    (key) => characters(key) <= MAX_IDEMPOTENCY_KEY_CHARACTERS,
    `Idempotency key must be at most ${MAX_IDEMPOTENCY_KEY_CHARACTERS} characters.`,
  )
  .nullish()
  .transform((key) => key ?? undefined);

const inputSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  invitedById: invitedByIdSchema,
  idempotencyKey: idempotencyKeySchema,
});

/** The input as it will be stored, or a `BadUserInputError` for the first field that is wrong. */
export function validateCreateUserInput(input: CreateUserInput): NormalizedUserInput {
  const result = inputSchema.safeParse(input ?? {});
  if (result.success) {
    const { name, email, invitedById, idempotencyKey } = result.data;
    return { name, email, invitedById, idempotencyKey };
  }
  const issue = result.error.issues[0];
  const field = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
  throw new BadUserInputError(issue.message, { field });
}

/** A fingerprint of what the user asked for, compared when an idempotency key is reused. */
export function inputHash(input: NormalizedUserInput): string {
  const fingerprint = JSON.stringify([input.name, input.email ?? null, input.invitedById ?? null]);
  return createHash('sha256').update(fingerprint).digest('base64url');
}
