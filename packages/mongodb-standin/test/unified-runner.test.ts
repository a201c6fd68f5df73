/**
 * The unified spec runner's own judgement (unified/), which decides what counts as a pass,
 * a wrong answer or a gap of the runner: the format's matching rules, event matching, and which
 * tests a one-member replica set cannot run. The runner measures the stand-in, so a matcher that
 * accepts too much would hide a wrong answer.
 */
import { BSON } from 'mongodb';
import { Entities } from '../unified/entities';
import { eventMatches } from '../unified/expect';
import { Matcher } from '../unified/match';
import { Mismatch, RunnerGap } from '../unified/mismatch';
import { missingSecondary, ServerProfile } from '../unified/requirements';

const matcher = new Matcher(new Entities());
const matches = (expected: unknown, actual: unknown, root = true) => {
  try {
    matcher.match(expected, actual, 'value', root);
    return true;
  } catch (error) {
    if (error instanceof RunnerGap) throw error;
    if (error instanceof Mismatch) return false;
    throw error;
  }
};

describe('matching', () => {
  test('a root document may carry extra fields, a nested one may not', () => {
    expect(matches({ a: 1 }, { a: 1, b: 2 })).toBe(true);
    expect(matches({ a: { x: 1 } }, { a: { x: 1, y: 2 } })).toBe(false);
    expect(matches({ a: 1 }, { a: 2 })).toBe(false);
  });

  test('numbers match across BSON numeric types, and only numbers', () => {
    expect(matches({ n: 1 }, { n: new BSON.Int32(1) })).toBe(true);
    expect(matches({ n: 1 }, { n: BSON.Long.fromNumber(1) })).toBe(true);
    expect(matches({ n: 1 }, { n: '1' })).toBe(false);
  });

  test.each([
    [new BSON.Int32(2_147_483_647), true],
    [BSON.Long.fromString('9223372036854775807'), true],
    [2.71828, true],
    [BSON.Decimal128.fromString('3.14159'), true],
    ['3', false],
    [null, false],
  ])('$$type number matches every numeric type: %s is %s', (value, expected) => {
    expect(matches({ x: { $$type: 'number' } }, { x: value })).toBe(expected);
  });

  test('$$matchAsDocument reads a JSON string, Extended JSON included, with no extra fields', () => {
    const json = JSON.stringify({ a: 1, when: { $date: '2020-01-01T00:00:00Z' } });
    const expected = { a: 1, when: { $$type: 'date' } };
    expect(matches({ $$matchAsDocument: expected }, json, false)).toBe(true);
    expect(matches({ $$matchAsDocument: { a: 1 } }, json, false)).toBe(false);
    expect(matches({ $$matchAsDocument: { $$matchAsRoot: { a: 1 } } }, json, false)).toBe(true);
    expect(matches({ $$matchAsDocument: expected }, { a: 1 }, false)).toBe(false);
  });

  test('$$matchAsRoot lets a nested document carry extra fields', () => {
    expect(matches({ a: { $$matchAsRoot: { x: 1 } } }, { a: { x: 1, y: 2 } })).toBe(true);
    expect(matches({ a: { $$matchAsRoot: { x: 1 } } }, { a: { x: 2 } })).toBe(false);
  });

  test('an operator the runner does not know is a runner gap, not a wrong answer', () => {
    expect(() => matches({ x: { $$noSuchOperator: 1 } }, { x: 1 })).toThrow(RunnerGap);
  });
});

describe('CMAP and SDAM events', () => {
  const poolCleared = { kind: 'poolClearedEvent', event: { address: 'h:1', serviceId: undefined } };
  const toUnknown = {
    kind: 'serverDescriptionChangedEvent',
    event: { newDescription: { type: 'Unknown', address: 'h:1', error: null } },
  };

  test('an event matches by kind and by the fields the expectation names', () => {
    expect(eventMatches({ poolClearedEvent: {} }, poolCleared, matcher)).toBe(true);
    expect(eventMatches({ poolClearedEvent: { hasServiceId: false } }, poolCleared, matcher)).toBe(
      true,
    );
    expect(eventMatches({ poolClearedEvent: { hasServiceId: true } }, poolCleared, matcher)).toBe(
      false,
    );
    expect(eventMatches({ poolReadyEvent: {} }, poolCleared, matcher)).toBe(false);
  });

  test("a server description is matched as a root document: its other fields don't count", () => {
    const unknown = { serverDescriptionChangedEvent: { newDescription: { type: 'Unknown' } } };
    const primary = { serverDescriptionChangedEvent: { newDescription: { type: 'RSPrimary' } } };
    expect(eventMatches(unknown, toUnknown, matcher)).toBe(true);
    expect(eventMatches(primary, toUnknown, matcher)).toBe(false);
  });
});

describe('what a one-member replica set cannot run', () => {
  const oneMember: ServerProfile = { version: [7, 0], topology: 'replicaset', members: 1 };
  const threeMembers: ServerProfile = { ...oneMember, members: 3 };
  const op = (name: string, args: object = {}) => ({ name, object: 'x', arguments: args });

  test('an operation that reads from secondaries only, also nested in another', () => {
    const reads = op('runCommand', {
      command: { replSetFreeze: 0 },
      readPreference: { mode: 'secondary' },
    });
    const nested = op('withTransaction', { callback: [], operations: [reads] });
    for (const operations of [[reads], [nested]]) {
      expect(missingSecondary({}, { operations }, oneMember)).toMatch(/needs a secondary/);
      expect(missingSecondary({}, { operations }, threeMembers)).toBeNull();
    }
    const primary = op('runCommand', { readPreference: { mode: 'primary' } });
    expect(missingSecondary({}, { operations: [primary] }, oneMember)).toBeNull();
  });

  test("not an operation in a session, a transaction's option, nor one expected to fail", () => {
    const secondary = { mode: 'secondary' };
    const inSession = op('find', { session: 'session0', readPreference: secondary });
    const refused = { ...op('runCommand', { readPreference: secondary }), expectError: {} };
    const transactionOption = op('startTransaction', { readPreference: secondary });
    for (const operation of [inSession, refused, transactionOption])
      expect(missingSecondary({}, { operations: [operation] }, oneMember)).toBeNull();
  });

  test('waiting for the topology changes of more than one member', () => {
    const wait = (count: number) =>
      op('waitForEvent', { client: 'c', event: { topologyDescriptionChangedEvent: {} }, count });
    expect(missingSecondary({}, { operations: [wait(4)] }, oneMember)).toMatch(/more members/);
    expect(missingSecondary({}, { operations: [wait(2)] }, oneMember)).toBeNull();
    expect(missingSecondary({}, { operations: [wait(4)] }, threeMembers)).toBeNull();
  });

  test('waiting for another member to become primary', () => {
    const operations = [op('waitForPrimaryChange', { client: 'c' })];
    expect(missingSecondary({}, { operations }, oneMember)).toMatch(/second member/);
  });
});
