/**
 * Display formats and periods as definitions: what `createSequence` accepts, what it refuses (with
 * BAD_USER_INPUT naming the field), and how a value is written. Nothing here reads a database.
 */
import { BadUserInputError } from '../../src/errors';
import { validateDefinition } from '../../src/sequences/definition';
import { formatValues, parseFormat } from '../../src/sequences/format';
import { validateTimeZone } from '../../src/sequences/periods';

function refusal(run: () => unknown): BadUserInputError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BadUserInputError);
    return error as BadUserInputError;
  }
  throw new Error('expected a refusal');
}

describe('writing a value', () => {
  test('prefix, padded value and the date parts of its period', () => {
    const format = 'INV-{YYYY}-{seq:6}';
    expect(formatValues(format, 'YEARLY', [1, 42, 999999], '2026')).toEqual([
      'INV-2026-000001',
      'INV-2026-000042',
      'INV-2026-999999',
    ]);
    expect(formatValues('{YY}{MM}{DD}/{seq:3}', 'DAILY', [7], '2027-01-01')).toEqual([
      '270101/007',
    ]);
    expect(formatValues('T-{seq}', null, [5, 123456], null)).toEqual(['T-5', 'T-123456']);
    expect(formatValues('№ {seq} (ü)', null, [3], null)).toEqual(['№ 3 (ü)']);
  });
});

describe('formats refused when defined', () => {
  test.each([
    ['', /1 to 64/],
    ['x'.repeat(65) + '{seq}', /1 to 64/],
    ['INV-{YYYY}', /exactly once/],
    ['{seq}-{seq}', /exactly once/],
    ['{seq:0}', /1 to 16/],
    ['{seq:17}', /1 to 16/],
    ['{seq:x}', /Unknown placeholder/],
    ['{year}-{seq}', /Unknown placeholder/],
    ['{toString}-{seq}', /Unknown placeholder/],
    ['a{b{seq}', /braces/],
    ['a}{seq}', /braces/],
    ['tab\t{seq}', /braces/],
    ['zero\u200bwidth{seq}', /braces/],
  ])('%j', (format, message) => {
    const error = refusal(() => parseFormat(format, 'YEARLY'));
    expect(error.field).toBe('format');
    expect(error.message).toMatch(message);
  });

  test('a refusal names hidden characters by code point and never echoes them', () => {
    const error = refusal(() => parseFormat('INV\u202E-\u0000{seq}', 'YEARLY'));
    expect(error.message).toContain('"INV<U+202E>-<U+0000>" is not');
    expect(error.message).not.toContain('\u202E');
    expect(error.message).not.toContain('\u0000');
  });

  test('a date part needs a period that carries it', () => {
    expect(refusal(() => parseFormat('{YYYY}-{seq}', null)).message).toMatch(/needs period/);
    expect(refusal(() => parseFormat('{MM}-{seq}', 'YEARLY')).message).toMatch(/MONTHLY or DAILY/);
    expect(refusal(() => parseFormat('{DD}-{seq}', 'MONTHLY')).message).toMatch(/DAILY/);
    expect(() => parseFormat('{YY}{MM}{DD}-{seq}', 'DAILY')).not.toThrow();
  });
});

describe('definitions with a format or a period', () => {
  test('a padded value bounds max: 10^width - 1 by default, never more', () => {
    expect(validateDefinition({ format: 'INV-{seq:6}' }).max).toBe(999_999);
    expect(validateDefinition({ format: 'INV-{seq:6}', max: 5_000 }).max).toBe(5_000);
    expect(validateDefinition({ format: 'INV-{seq:16}' }).max).toBe(Number.MAX_SAFE_INTEGER);
    expect(validateDefinition({ format: 'INV-{seq}' }).max).toBeNull();
    const overflow = refusal(() => validateDefinition({ format: 'INV-{seq:6}', max: 1_000_000 }));
    expect(overflow).toMatchObject({ field: 'format' });
    expect(overflow.message).toMatch(/at most 999999/);
    expect(refusal(() => validateDefinition({ format: '{seq:2}', start: 100 })).field).toBe(
      'format',
    );
    expect(refusal(() => validateDefinition({ format: '{seq:2}', start: -1 })).field).toBe(
      'format',
    );
  });

  test('a period takes an IANA zone, UTC by default; a zone needs a period', () => {
    expect(validateDefinition({ period: 'YEARLY' })).toMatchObject({
      period: 'YEARLY',
      timeZone: 'UTC',
    });
    expect(
      validateDefinition({ period: 'MONTHLY', timeZone: 'Europe/Berlin', format: '{MM}/{seq}' }),
    ).toMatchObject({ period: 'MONTHLY', timeZone: 'Europe/Berlin', format: '{MM}/{seq}' });
    expect(refusal(() => validateDefinition({ timeZone: 'Europe/Berlin' })).field).toBe('timeZone');
    expect(refusal(() => validateDefinition({ period: 'WEEKLY' as never })).field).toBe('period');
    expect(validateDefinition({ period: 'YEARLY', gapless: true })).toMatchObject({
      period: 'YEARLY',
      holdSeconds: 60,
    });
  });

  test('time zones: names ICU knows, spelled as ICU does; offsets and unknown names refused', () => {
    expect(validateTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(validateTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(validateTimeZone('America/Argentina/Buenos_Aires')).toBe(
      'America/Argentina/Buenos_Aires',
    );
    for (const zone of [
      'Mars/Olympus',
      '+01:00',
      'Europe/Nowhere',
      '',
      'Europe/../Berlin',
      'x'.repeat(80),
    ]) {
      expect(refusal(() => validateTimeZone(zone))).toMatchObject({ field: 'timeZone' });
    }
  });
});
