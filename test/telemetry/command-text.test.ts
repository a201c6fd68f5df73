/**
 * A MongoDB command's `db.query.text`: the command, its collection and its fields, never a value
 * of a document (src/telemetry/command-text.ts).
 */
import { commandText } from '../../src/telemetry/command-text';

describe('commandText', () => {
  test('names the command and its collection, and hides every other value', () => {
    const text = commandText({
      findAndModify: 'counters',
      query: { _id: 'users' },
      update: { $inc: { seq: 1 } },
      new: true,
      upsert: true,
      maxTimeMS: 5000,
    });
    expect(text).toBe(
      '{"findAndModify":"counters","query":"?","update":"?","new":"?","upsert":"?","maxTimeMS":"?"}',
    );
    expect(JSON.parse(text)).toEqual({
      findAndModify: 'counters',
      query: '?',
      update: '?',
      new: '?',
      upsert: '?',
      maxTimeMS: '?',
    });
  });

  test('an inserted document shows its fields only: its _id is a value, even a string one', () => {
    expect(commandText({ _id: 'u-7', name: 'Ada', email: 'ada@example.com' })).toBe(
      '{"_id":"?","name":"?","email":"?"}',
    );
    expect(commandText({ _id: 7, name: 'Ada' })).toBe('{"_id":"?","name":"?"}');
  });

  test('a first value that is not a name is hidden, and field names are escaped', () => {
    expect(commandText({ aggregate: 1, pipeline: [{ $match: { secret: 'x' } }] })).toBe(
      '{"aggregate":"?","pipeline":"?"}',
    );
    expect(JSON.parse(commandText({ 'a"b': 'c', 'd\ne': 'f' }))).toEqual({
      'a"b': 'c',
      'd\ne': '?',
    });
    expect(commandText({})).toBe('{}');
  });
});
