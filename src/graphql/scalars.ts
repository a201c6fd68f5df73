/**
 * The schema's custom scalars.
 *
 * `Long`: a sequence value, a JSON number on the wire. Accepted as a number or a string of decimal
 * digits; refused (BAD_USER_INPUT) when it is not an integer or lies beyond ±(2^53 - 1), because
 * such a value cannot round-trip through a JSON client without losing precision. Output never
 * rounds: a value the service cannot send exactly is an internal error, not a wrong number.
 *
 * `DateTime`: an instant as an ISO-8601 UTC string.
 *
 * Only coercion lives here; names, descriptions and `@specifiedBy` live in schema.graphql, the one
 * source. So these are not `GraphQLScalarType`s: graphql-tools copies every own property of a
 * resolver scalar over the SDL's type, an undefined `description` and `specifiedByURL` included,
 * and introspection then lost both. The `__`-prefixed functions set only the coercion.
 */
import { GraphQLError, Kind, type ValueNode } from 'graphql';

/** An input the client must correct, raised while coercing a scalar (variables or literals). */
export class ScalarInputError extends GraphQLError {
  constructor(message: string) {
    super(message, { extensions: { code: 'BAD_USER_INPUT' } });
  }
}

const INTEGER_TEXT = /^-?\d{1,16}$/;

function longFromInput(value: unknown): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    throw new ScalarInputError(
      Number.isInteger(value)
        ? `Long must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`
        : 'Long must be a whole number',
    );
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (!INTEGER_TEXT.test(text)) {
      throw new ScalarInputError(
        /^-?\d+$/.test(text)
          ? `Long must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`
          : 'Long must be a whole number or a string of digits',
      );
    }
    return longFromInput(Number(text));
  }
  throw new ScalarInputError('Long must be a whole number or a string of digits');
}

function longFromOutput(value: unknown): number {
  const numeric =
    typeof value === 'object' &&
    value !== null &&
    'toNumber' in value &&
    typeof value.toNumber === 'function'
      ? (value.toNumber() as unknown)
      : typeof value === 'bigint'
        ? Number(value)
        : value;
  if (typeof numeric === 'number' && Number.isSafeInteger(numeric)) return numeric;
  throw new GraphQLError(`Long cannot represent ${String(value)} exactly`);
}

const longCoercion = {
  __serialize: longFromOutput,
  __parseValue: longFromInput,
  __parseLiteral(ast: ValueNode): number {
    if (ast.kind === Kind.INT || ast.kind === Kind.STRING) return longFromInput(ast.value);
    if (ast.kind === Kind.FLOAT) throw new ScalarInputError('Long must be a whole number');
    throw new ScalarInputError('Long must be a whole number or a string of digits');
  },
};

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

function dateFromInput(value: unknown): Date {
  if (typeof value === 'string' && ISO_INSTANT.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new ScalarInputError(
    'DateTime must be an ISO-8601 instant such as 2026-11-30T12:00:00.000Z',
  );
}

const dateTimeCoercion = {
  __serialize(value: unknown): string {
    const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
    if (date === null || Number.isNaN(date.getTime())) {
      throw new GraphQLError(`DateTime cannot represent ${String(value)}`);
    }
    return date.toISOString();
  },
  __parseValue: dateFromInput,
  __parseLiteral(ast: ValueNode): Date {
    return dateFromInput(ast.kind === Kind.STRING ? ast.value : undefined);
  },
};

/** The custom scalars' coercion, as resolvers beside the typed ones (src/graphql/server.ts). */
export const scalarResolvers = { Long: longCoercion, DateTime: dateTimeCoercion };
