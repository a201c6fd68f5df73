/**
 * Parsing requests and serializing replies for the two opcodes a driver uses: OP_MSG (body
 * section plus document-sequence sections, which are folded into the body as arrays; the
 * checksum flag is tolerated and the checksum not verified) and the legacy OP_QUERY command
 * form answered by OP_REPLY, which drivers still use for the first `hello`. Values are decoded
 * with their BSON numeric types intact (Int32/Double/Long stay distinct). Any structural
 * problem throws WireError. A BSON object above mongod's BSONObjMaxInternalSize (16 MB + 16 KB)
 * is not decoded: the request comes back with `oversized` set, answered as mongod answers it
 * (BSONObjectTooLarge) without running anything.
 */
import { BSON } from 'bson';
import { HEADER_LENGTH } from './framer';
import { WireError } from './wire-error';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

const CHECKSUM_PRESENT = 1 << 0;
export const MORE_TO_COME = 1 << 1;
const EXHAUST_ALLOWED = 1 << 16;
const KNOWN_MSG_FLAGS = CHECKSUM_PRESENT | MORE_TO_COME | EXHAUST_ALLOWED;

export type Document = Record<string, unknown>;

/** BSONObjMaxInternalSize: the largest BSON object mongod reads off the wire (16 MB + 16 KB). */
export const MAX_BSON_OBJECT_BYTES = 16 * 1024 * 1024 + 16 * 1024;

/** A BSON object above MAX_BSON_OBJECT_BYTES: its message is refused, not its connection. */
class OversizedBson extends Error {}

export interface CommandRequest {
  opCode: typeof OP_MSG | typeof OP_QUERY;
  requestId: number;
  /** the command document (OP_MSG body with sequences folded in, or OP_QUERY's query) */
  command: Document;
  /** database the command addresses ($db, or the OP_QUERY namespace's database) */
  database: string;
  /** OP_MSG moreToCome: the client expects no reply */
  moreToCome: boolean;
  /** OP_MSG exhaustAllowed: the client takes a stream of replies (moreToCome) to this one */
  exhaustAllowed: boolean;
  /** set when the message held a BSON object above MAX_BSON_OBJECT_BYTES: mongod's errmsg */
  oversized?: string;
}

/** How the stand-in decodes BSON everywhere (the wire, the journal, the snapshot). */
export const DESERIALIZE_OPTIONS = {
  promoteValues: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;

/** Reads one BSON document at `offset`, checking its declared length against the bytes left. */
function readDocument(
  buffer: Buffer,
  offset: number,
  end: number,
): { document: Document; next: number } {
  if (offset + 5 > end) throw new WireError('truncated BSON document');
  const size = buffer.readInt32LE(offset);
  if (size < 5 || offset + size > end)
    throw new WireError(`BSON document length ${size} exceeds its section`);
  if (size > MAX_BSON_OBJECT_BYTES) {
    throw new OversizedBson(
      `BSONObj size: ${size} (0x${size.toString(16).toUpperCase()}) is invalid. Size must be between 0 and ${MAX_BSON_OBJECT_BYTES}(16MB)`,
    );
  }
  try {
    return {
      document: BSON.deserialize(buffer.subarray(offset, offset + size), DESERIALIZE_OPTIONS),
      next: offset + size,
    };
  } catch (error) {
    throw new WireError(`invalid BSON: ${(error as Error).message}`);
  }
}

function readCString(buffer: Buffer, offset: number, end: number): { value: string; next: number } {
  const zero = buffer.indexOf(0, offset);
  if (zero < 0 || zero >= end) throw new WireError('unterminated C string');
  return { value: buffer.toString('utf8', offset, zero), next: zero + 1 };
}

function parseOpMsg(message: Buffer, requestId: number): CommandRequest {
  const flags = message.readUInt32LE(HEADER_LENGTH);
  if ((flags & ~KNOWN_MSG_FLAGS & 0xffff) !== 0)
    throw new WireError(`unknown required OP_MSG flag bits ${flags}`);
  const end = flags & CHECKSUM_PRESENT ? message.length - 4 : message.length;
  let offset = HEADER_LENGTH + 4;
  let body: Document | null = null;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = message[offset++];
    if (kind === 0) {
      if (body) throw new WireError('OP_MSG with two body sections');
      const read = readDocument(message, offset, end);
      body = read.document;
      offset = read.next;
    } else if (kind === 1) {
      if (offset + 4 > end) throw new WireError('truncated document sequence');
      const sectionEnd = offset + message.readInt32LE(offset);
      if (sectionEnd > end || sectionEnd < offset + 5)
        throw new WireError('document sequence length out of range');
      const name = readCString(message, offset + 4, sectionEnd);
      const documents: Document[] = [];
      let cursor = name.next;
      while (cursor < sectionEnd) {
        const read = readDocument(message, cursor, sectionEnd);
        documents.push(read.document);
        cursor = read.next;
      }
      sequences.push([name.value, documents]);
      offset = sectionEnd;
    } else {
      throw new WireError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new WireError('OP_MSG without a body section');
  for (const [name, documents] of sequences) body[name] = documents;
  if (typeof body.$db !== 'string') throw new WireError('OP_MSG command without $db');
  return {
    opCode: OP_MSG,
    requestId,
    command: body,
    database: body.$db,
    moreToCome: (flags & MORE_TO_COME) !== 0,
    exhaustAllowed: (flags & EXHAUST_ALLOWED) !== 0,
  };
}

function parseOpQuery(message: Buffer, requestId: number): CommandRequest {
  const namespace = readCString(message, HEADER_LENGTH + 4, message.length);
  const [database, collection] = [
    namespace.value.split('.')[0],
    namespace.value.slice(namespace.value.indexOf('.') + 1),
  ];
  if (collection !== '$cmd')
    throw new WireError(`OP_QUERY on ${namespace.value}: only commands ($cmd) are supported`);
  const query = readDocument(message, namespace.next + 8, message.length).document;
  const command = (query.$query as Document | undefined) ?? query;
  return {
    opCode: OP_QUERY,
    requestId,
    command,
    database,
    moreToCome: false,
    exhaustAllowed: false,
  };
}

/** Parses one complete message (as delimited by MessageFramer). */
export function parseMessage(message: Buffer): CommandRequest {
  if (message.length < HEADER_LENGTH + 5)
    throw new WireError(`message of ${message.length} bytes is too short`);
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode !== OP_MSG && opCode !== OP_QUERY) throw new WireError(`unsupported opcode ${opCode}`);
  try {
    return opCode === OP_MSG ? parseOpMsg(message, requestId) : parseOpQuery(message, requestId);
  } catch (error) {
    if (!(error instanceof OversizedBson)) throw error;
    const flags = opCode === OP_MSG ? message.readUInt32LE(HEADER_LENGTH) : 0;
    return {
      opCode,
      requestId,
      command: {},
      database: '',
      moreToCome: (flags & MORE_TO_COME) !== 0,
      exhaustAllowed: false,
      oversized: error.message,
    };
  }
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(HEADER_LENGTH);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId, 4);
  buffer.writeInt32LE(responseTo, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

/** An OP_MSG reply; `flags` MORE_TO_COME when more replies to the same request follow. */
export function serializeOpMsg(
  reply: Document,
  requestId: number,
  responseTo: number,
  flags = 0,
): Buffer {
  const body = BSON.serialize(reply);
  const length = HEADER_LENGTH + 4 + 1 + body.length;
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32LE(flags, 0);
  return Buffer.concat([header(length, requestId, responseTo, OP_MSG), prefix, body], length);
}

export function serializeOpReply(reply: Document, requestId: number, responseTo: number): Buffer {
  const body = BSON.serialize(reply);
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(1, 16); // numberReturned; responseFlags, cursorID and startingFrom stay 0
  const length = HEADER_LENGTH + fields.length + body.length;
  return Buffer.concat([header(length, requestId, responseTo, OP_REPLY), fields, body], length);
}

export function serializeReply(
  request: CommandRequest,
  reply: Document,
  requestId: number,
): Buffer {
  return request.opCode === OP_MSG
    ? serializeOpMsg(reply, requestId, request.requestId)
    : serializeOpReply(reply, requestId, request.requestId);
}
