/**
 * The `db.query.text` of a MongoDB command's span: which command, on which collection, with which
 * fields, and no value of any document.
 *
 * What the instrumentation hands over is the command (`{ findAndModify: 'counters', query, update,
 * ... }`), or for an insert its first document. The text keeps the command's fields in order, the
 * first one's value when it is a name (the collection a command works on; an inserted document's
 * first field is its `_id`, which is a value) and `?` for every other value:
 * `{"findAndModify":"counters","query":"?","update":"?",...}`, `{"_id":"?","name":"?",...}`.
 *
 * Why not the instrumentation's default text: it serializes every command whole, nested
 * documents included (values replaced by `?`), and that was the largest single cost of tracing in
 * a CPU profile of `createUser` (docs/operations.md, "Traces"). The fields of the top level tell
 * an operator which command of the service a span is; a value would be a user's data in the trace.
 */
export function commandText(command: Record<string, unknown>): string {
  const fields = Object.keys(command).map((field, at) => {
    const value = command[field];
    const shown = at === 0 && field !== '_id' && typeof value === 'string' ? value : '?';
    return `${JSON.stringify(field)}:${JSON.stringify(shown)}`;
  });
  return `{${fields.join(',')}}`;
}
