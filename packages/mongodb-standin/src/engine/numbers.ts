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

function kindOf(value: unknown): NumericKind {
  if (value instanceof Decimal128) throw unsupported('Decimal128 arithmetic');
  if (value instanceof Int32) return 'int';
  if (value instanceof Long) return 'long';
  if (value instanceof Double) return 'double';
  const n = value as number;
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX ? 'int' : 'double';
}

function longOf(value: unknown): Long {
  return value instanceof Long ? value : Long.fromNumber(numberOf(value));
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
  const x = longOf(a);
  const y = longOf(b);
  const sum = x.add(y);
  // Two's-complement overflow: operands of one sign giving a result of the other.
  const overflowed = x.isNegative() === y.isNegative() && sum.isNegative() !== x.isNegative();
  return overflowed ? null : sum;
}

/** a + b for aggregation expressions: Int64 overflow degrades to a Double, as in `$add`. */
export function addForExpression(a: unknown, b: unknown): Int32 | Long | Double {
  return addNumbers(a, b) ?? new Double(numberOf(a) + numberOf(b));
}
