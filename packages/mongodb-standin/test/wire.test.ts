/** Wire framing and message parsing/serialization, without sockets. */
import { BSON, Int32, Long } from 'bson';
import { MessageFramer } from '../src/wire/framer';
import {
  MORE_TO_COME,
  OP_MSG,
  OP_QUERY,
  parseMessage,
  serializeOpMsg,
  serializeOpReply,
} from '../src/wire/messages';
import { WireError } from '../src/wire/wire-error';

function header(length: number, requestId: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(16);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId, 4);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

function opMsg(
  body: object,
  options: { flags?: number; sequences?: Array<[string, object[]]>; checksum?: boolean } = {},
): Buffer {
  const parts: Uint8Array[] = [];
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE((options.flags ?? 0) | (options.checksum ? 1 : 0));
  parts.push(flags, Buffer.from([0]), BSON.serialize(body));
  for (const [name, docs] of options.sequences ?? []) {
    const payload = Buffer.concat([
      Buffer.from(`${name}\0`),
      ...docs.map((doc) => BSON.serialize(doc)),
    ]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(payload.length + 4);
    parts.push(Buffer.from([1]), size, payload);
  }
  if (options.checksum) parts.push(Buffer.alloc(4));
  const rest = Buffer.concat(parts);
  return Buffer.concat([header(16 + rest.length, 7, OP_MSG), rest]);
}

describe('MessageFramer', () => {
  test('reassembles a message split across chunks and splits two messages sharing a chunk', () => {
    const first = opMsg({ ping: 1, $db: 'a' });
    const second = opMsg({ ping: 2, $db: 'b' });
    const framer = new MessageFramer();
    expect(framer.push(first.subarray(0, 3))).toEqual([]);
    expect(framer.push(first.subarray(3, 20))).toEqual([]);
    const both = framer.push(Buffer.concat([first.subarray(20), second]));
    expect(both.map((m) => parseMessage(m).database)).toEqual(['a', 'b']);
  });

  test.each([
    ['shorter than a header', 8],
    ['negative', -1],
    ['above the advertised maximum', 48_000_001],
  ])('refuses a length %s', (_name, length) => {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32LE(length);
    expect(() => new MessageFramer().push(bytes)).toThrow(WireError);
  });
});

describe('parseMessage', () => {
  test('OP_MSG keeps BSON numeric types and folds document sequences into the body', () => {
    const request = parseMessage(
      opMsg(
        { insert: 'c', $db: 'd', n: new Int32(1), big: Long.fromNumber(2) },
        { sequences: [['documents', [{ a: 1 }, { a: 2.5 }]]] },
      ),
    );
    expect(request.opCode).toBe(OP_MSG);
    expect(request.requestId).toBe(7);
    expect(request.database).toBe('d');
    expect(request.command.n).toBeInstanceOf(Int32);
    expect(request.command.big).toBeInstanceOf(Long);
    expect((request.command.documents as object[]).length).toBe(2);
  });

  test('OP_MSG with the checksum flag parses, and moreToCome is reported', () => {
    const request = parseMessage(
      opMsg({ ping: 1, $db: 'x' }, { checksum: true, flags: MORE_TO_COME }),
    );
    expect(request.command).toMatchObject({ ping: new Int32(1) });
    expect(request.moreToCome).toBe(true);
  });

  test('legacy OP_QUERY on admin.$cmd yields the command, unwrapping $query', () => {
    const query = BSON.serialize({ $query: { isMaster: 1 }, $readPreference: { mode: 'primary' } });
    const rest = Buffer.concat([
      Buffer.alloc(4),
      Buffer.from('admin.$cmd\0'),
      Buffer.alloc(8),
      query,
    ]);
    const request = parseMessage(Buffer.concat([header(16 + rest.length, 3, OP_QUERY), rest]));
    expect(request.opCode).toBe(OP_QUERY);
    expect(request.database).toBe('admin');
    expect(Object.keys(request.command)).toEqual(['isMaster']);
  });

  test.each([
    ['an unknown opcode', () => Buffer.concat([header(21, 1, 2010), Buffer.alloc(5)])],
    ['an OP_MSG without $db', () => opMsg({ ping: 1 })],
    [
      'a BSON length running past the message',
      () => {
        const message = opMsg({ ping: 1, $db: 'x' });
        message.writeInt32LE(1_000, 21);
        return message;
      },
    ],
    [
      'corrupt BSON',
      () => {
        const message = opMsg({ ping: 1, $db: 'x' });
        message[25] = 0x42; // no such BSON element type
        return message;
      },
    ],
    [
      'an unknown section kind',
      () => Buffer.concat([opMsg({ ping: 1, $db: 'x' }), Buffer.from([9])]),
    ],
  ])('refuses %s with a WireError', (_name, build) => {
    const message = build();
    message.writeInt32LE(message.length, 0);
    expect(() => parseMessage(message)).toThrow(WireError);
  });
});

describe('serialization', () => {
  test('an OP_MSG reply answers the request id and parses back', () => {
    const reply = serializeOpMsg({ ok: 1, $db: 'x' }, 99, 7);
    expect(reply.readInt32LE(0)).toBe(reply.length);
    expect(reply.readInt32LE(8)).toBe(7);
    expect(parseMessage(reply).command).toEqual({ ok: new Int32(1), $db: 'x' });
  });

  test('an OP_REPLY carries one document after the 20-byte reply fields', () => {
    const reply = serializeOpReply({ ok: 1 }, 5, 3);
    expect(reply.readInt32LE(12)).toBe(1);
    expect(reply.readInt32LE(32)).toBe(1);
    expect(BSON.deserialize(reply.subarray(36))).toEqual({ ok: 1 });
  });
});
