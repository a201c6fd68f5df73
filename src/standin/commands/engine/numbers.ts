/**
 * Arithmetic that keeps BSON numeric types the way MongoDB does: Int32 + Int32 stays Int32
 * unless it overflows (then Int64); anything involving Int64 is Int64 (exact, via BigInt);
 * anything involving a Double is a Double. Decimal128 arithmetic is refused, not approximated.
 */
import { Decimal128, Double, Int32, Long } from 'bson';
import { unsupported } from './errors';
import { numberOf } from './values';

type NumericKind = 'int' | 'long' | 'double';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function kindOf(value: unknown): NumericKind {
  if (value instanceof Decimal128) throw unsupported('Decimal128 arithmetic');
  if (value instanceof Int32) return 'int';
  if (value instanceof Long) return 'long';
  if (value instanceof Double) return 'double';
  const n = value as number;
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX ? 'int' : 'double';
}

function bigOf(value: unknown): bigint {
  return value instanceof Long ? BigInt(value.toString()) : BigInt(numberOf(value));
}

/** Result of a + b, or null when an Int64 result would overflow (the caller decides: error or double). */
export function addNumbers(a: unknown, b: unknown): Int32 | Long | Double | null {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'double' || kb === 'double') return new Double(numberOf(a) + numberOf(b));
  if (ka === 'int' && kb === 'int') {
    const sum = numberOf(a) + numberOf(b);
    return sum >= INT32_MIN && sum <= INT32_MAX ? new Int32(sum) : Long.fromNumber(sum);
  }
  const sum = bigOf(a) + bigOf(b);
  return sum < INT64_MIN || sum > INT64_MAX ? null : Long.fromBigInt(sum);
}

/** a + b for aggregation expressions: Int64 overflow degrades to a Double, as in `$add`. */
export function addForExpression(a: unknown, b: unknown): Int32 | Long | Double {
  return addNumbers(a, b) ?? new Double(numberOf(a) + numberOf(b));
}
