'use strict';
/**
 * Preloaded into a service process (`node --require`) to run it with its clock `CLOCK_SKEW_MS`
 * milliseconds off the machine's: `new Date()` and `Date.now()` read the real time plus the skew,
 * ticking at real speed; dates made from a value, and timers, are untouched. A `Date` made before
 * it or by Node itself still counts as a Date (`instanceof`).
 */
const NativeDate = Date;
const skew = Number(globalThis.process.env.CLOCK_SKEW_MS ?? '0');
if (!Number.isFinite(skew))
  throw new Error(`CLOCK_SKEW_MS is not a number: ${globalThis.process.env.CLOCK_SKEW_MS}`);

class SkewedDate extends NativeDate {
  constructor(...args) {
    if (args.length === 0) super(NativeDate.now() + skew);
    else super(...args);
  }

  static now() {
    return NativeDate.now() + skew;
  }

  static [Symbol.hasInstance](instance) {
    return instance instanceof NativeDate;
  }
}

globalThis.Date = SkewedDate;
