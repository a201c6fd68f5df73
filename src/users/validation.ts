/**
 * Turning client input into values that are safe to store, before anything touches the database.
 *
 * Invariants: runs before any id is taken, so refused input never consumes a counter value; every
 * refusal is a `BadUserInputError` naming its field with a message a person can act on. The output
 * holds only the known fields, as plain strings and numbers: no key of the client's object and no
 * `$`-operator can reach a MongoDB filter or document. `inputHash` fingerprints what the user asked
 * for (name, email, inviter) and not how (the strategy): retrying the same request with another
 * strategy is still the same request. Text is what it looks like: not well-formed Unicode is
 * refused, every string is NFC-normalised and trimmed before it is checked, hashed, compared or
 * stored (so the stored value is exactly the acknowledged one), names need a visible character and
 * carry no hidden ones. Case rules: emails are lower-cased whole (domains are case-insensitive, and
 * mail providers treat local parts so too); idempotency keys keep their case (opaque tokens).
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { BadUserInputError } from '../errors';
import type { CreateUserInput } from './model';

export interface NormalizedUserInput {
  /** NFC, trimmed. */
  name: string;
  /** NFC, trimmed and lower-cased, so `Ann@Example.com` and `ann@example.com` are one address. */
  email?: string;
  invitedById?: number;
  /** NFC and trimmed; case-sensitive (keys are opaque tokens: `abc` and `ABC` are two keys). */
  idempotencyKey?: string;
}

const MAX_NAME_CHARACTERS = 100;
const MAX_EMAIL_CHARACTERS = 254;
const MAX_IDEMPOTENCY_KEY_CHARACTERS = 128;
const POSITIVE_DECIMAL = /^[1-9][0-9]{0,15}$/;
/** A UTF-16 surrogate without its pair: not text; the driver would store it as U+FFFD. */
const LONE_SURROGATE = /\p{Cs}/u;
/**
 * Characters that act without being seen: controls, format characters (bidi overrides and
 * isolates, zero-width space, BOM, soft hyphen...), line and paragraph separators.
 */
const HIDDEN_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** The zero-width joiners that emoji sequences and several scripts (Persian, Indic) need. */
const JOINERS = /[\u200C\u200D]/gu;
/** Letters and symbols that render as blanks: Hangul fillers, the Braille blank. */
const BLANK_LOOKING = /[\u115F\u1160\u3164\uFFA0\u2800]/gu;
/** What a person can see: a letter, digit, punctuation or symbol (combining marks alone are not). */
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

/** Characters as a person counts them (code points), not UTF-16 units. */
const characters = (text: string) => [...text].length;

/**
 * Text as it will be stored and compared: refused when it is not well-formed Unicode (naming the
 * field, before anything else can mangle it), then NFC-normalised and trimmed, so two spellings a
 * person cannot tell apart are one value.
 */
const text = (label: string) =>
  z
    .string({ error: `${label} must be text.` })
    .refine(
      (value) => !LONE_SURROGATE.test(value),
      `${label} is not valid Unicode text (it holds a lone surrogate).`,
    )
    .transform((value) => value.normalize('NFC').trim());

const nameSchema = z
  .string({
    error: (issue) => (issue.input === undefined ? 'Name is required.' : 'Name must be text.'),
  })
  .pipe(text('Name'))
  .refine((name) => characters(name) >= 1, 'Name must not be empty.')
  .refine(
    (name) => characters(name) <= MAX_NAME_CHARACTERS,
    `Name must be at most ${MAX_NAME_CHARACTERS} characters.`,
  )
  .refine(
    (name) => !HIDDEN_CHARACTER.test(name.replace(JOINERS, '')),
    'Name must not contain control, format or line-separator characters (such as direction overrides or zero-width spaces).',
  )
  .refine(
    (name) => VISIBLE.test(name.replace(BLANK_LOOKING, '')),
    'Name must contain at least one visible letter, digit or symbol.',
  );

const emailSchema = text('Email')
  .pipe(
    z
      .string()
      .max(MAX_EMAIL_CHARACTERS, `Email must be at most ${MAX_EMAIL_CHARACTERS} characters.`)
      .transform((email) => email.toLowerCase())
      .pipe(
        z.union([z.literal(''), z.email('Enter a valid email address, like ann@example.com.')]),
      ),
  )
  .nullish()
  .transform((email) => email || undefined);

/** A user id as a client sends it: the decimal string of a positive integer up to 2^53 - 1. */
export function parseUserId(id: string): number | null {
  if (!POSITIVE_DECIMAL.test(id)) return null;
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : null;
}

/**
 * `id` as a user id, unchanged; BAD_USER_INPUT naming `field` when it cannot be one (a lookup of a
 * malformed id says so instead of answering null, which would read as "deleted").
 */
export function requireUserId(id: string, field = 'id'): string {
  if (parseUserId(id) === null) {
    throw new BadUserInputError(
      `${field} must be a user id: the decimal string of a positive whole number, like "42".`,
      { field },
    );
  }
  return id;
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

const idempotencyKeySchema = text('Idempotency key')
  .refine((key) => characters(key) >= 1, 'Idempotency key must not be empty.')
  .refine(
    (key) => characters(key) <= MAX_IDEMPOTENCY_KEY_CHARACTERS,
    `Idempotency key must be at most ${MAX_IDEMPOTENCY_KEY_CHARACTERS} characters.`,
  )
  .refine(
    (key) => !HIDDEN_CHARACTER.test(key),
    'Idempotency key must not contain control, format or line-separator characters.',
  )
  .nullish()
  .transform((key) => key ?? undefined);

const inputSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  invitedById: invitedByIdSchema,
  idempotencyKey: idempotencyKeySchema,
});

/**
 * A name every rule of `nameSchema` accepts as it is, but for the trimming: printable ASCII
 * (U+0020 to U+007E) is its own NFC, holds no surrogate and no hidden character, and each of its
 * characters but the space is a letter, digit, punctuation or symbol, one code point each; at most
 * MAX_NAME_CHARACTERS of them, one of them visible.
 */
const PLAIN_NAME = new RegExp(`^[\\x20-\\x7e]{1,${MAX_NAME_CHARACTERS}}$`);
const VISIBLE_ASCII = /[\x21-\x7e]/;

/**
 * The input of a plain name and nothing else, as `inputSchema` answers it, or null for any other
 * input (zod then decides). Why: nearly every creation is one, and zod's parse of the four fields
 * was about 1.5% of a `createUser`'s CPU in profiles (bench/results/0.4.md, "CPU levers of 0.4").
 */
function plainNameInput(input: CreateUserInput): NormalizedUserInput | null {
  if (typeof input !== 'object' || input === null) return null;
  const { name, email, invitedById, idempotencyKey } = input;
  if (email != null || invitedById != null || idempotencyKey != null) return null;
  if (typeof name !== 'string' || !PLAIN_NAME.test(name) || !VISIBLE_ASCII.test(name)) return null;
  return { name: name.trim(), email: undefined, invitedById: undefined, idempotencyKey: undefined };
}

/** The input as it will be stored, or a `BadUserInputError` for the first field that is wrong. */
export function validateCreateUserInput(input: CreateUserInput): NormalizedUserInput {
  const plain = plainNameInput(input);
  if (plain !== null) return plain;
  const result = inputSchema.safeParse(input ?? {});
  if (result.success) {
    const { name, email, invitedById, idempotencyKey } = result.data;
    return { name, email, invitedById, idempotencyKey };
  }
  throw inputError(result.error.issues[0]);
}

function inputError(issue: z.core.$ZodIssue): BadUserInputError {
  const field = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
  return new BadUserInputError(issue.message, { field });
}

/** What `updateUser` changes: absent fields are kept; `email: null` removes the email. */
export interface NormalizedUserUpdate {
  name?: string;
  email?: string | null;
}

const updateSchema = z.object({ name: nameSchema.optional(), email: emailSchema });

/** The changes as they will be stored (the creation rules), or BAD_USER_INPUT naming the field. */
export function validateUserUpdate(input: {
  name?: string | null;
  email?: string | null;
}): NormalizedUserUpdate {
  const result = updateSchema.safeParse({ name: input?.name ?? undefined, email: input?.email });
  if (!result.success) throw inputError(result.error.issues[0]);
  const update: NormalizedUserUpdate = {};
  if (result.data.name !== undefined) update.name = result.data.name;
  if (input.email !== undefined) update.email = result.data.email ?? null;
  return update;
}

/** An email as stored (NFC, trimmed, lower-cased), or null when it could never be stored. */
export function normalizeEmail(email: string): string | null {
  const result = emailSchema.safeParse(email);
  return result.success ? (result.data ?? null) : null;
}

/** A fingerprint of what the user asked for, compared when an idempotency key is reused. */
export function inputHash(input: NormalizedUserInput): string {
  const fingerprint = JSON.stringify([input.name, input.email ?? null, input.invitedById ?? null]);
  return hash('sha256', fingerprint, 'base64url');
}
