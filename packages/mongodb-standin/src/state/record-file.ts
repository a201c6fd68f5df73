/**
 * The on-disk record format shared by the journal and the snapshot: each record is
 * `[uint32 LE length of the BSON payload][uint32 LE CRC-32 of the payload][BSON payload]`.
 *
 * Reading stops at the first record that is not whole (a header or payload running past the end
 * of the file, a length no BSON document has, or a failed checksum) and decides what the rest is:
 * - only zeros: the end of the records. A journal file is written in place into space filled
 *   with zeros ahead of its records (journal-file.ts), so that is where its records end;
 * - a record cut short followed by only zeros (or by nothing), holding no whole record: a torn
 *   write, the process died mid-append (a write lays its bytes down in order, so what follows
 *   the tear is still zeros). No reply depended on it: the caller truncates it away;
 * - anything else: corruption, an error naming the file and offset. That is a bad record with
 *   data after what it claims (a flipped byte in an early record), and a bad record whose bytes
 *   up to the end of the data hold a whole, valid record: a length byte flipped upward makes a
 *   record claim past the end of the file, or into the zeros after the records, and would pass
 *   for the torn last one. Records after it may have been acknowledged and must not be dropped
 *   silently, and bytes after a bad record are never read as records: the search only tells
 *   the two apart (a torn write's bytes are a prefix of one record, whose BSON holds no record
 *   header with a matching checksum; should a stored value hold one, recovery refuses rather
 *   than drops).
 * A length below 5 (the smallest BSON document) is never a record, so eight zero bytes, whose
 * CRC-32 of nothing is 0, are not taken for one.
 *
 * `writeFully` is the one way records reach a file: a write may store fewer bytes than asked
 * (a filesystem filling up stores what fits and says how much), so it writes the rest until all
 * is written or the system refuses with an error (ENOSPC, EIO, ...), which it throws. Callers
 * never count a record as written on the word of a single write call.
 */
import { writevSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { BSON } from 'bson';
import { Document } from '../engine/values';
import { DESERIALIZE_OPTIONS } from '../wire/messages';

const HEADER_BYTES = 8;

export function encodeRecord(payload: Document): Buffer {
  const body = BSON.serialize(payload);
  const record = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  record.writeUInt32LE(body.length, 0);
  record.writeUInt32LE(crc32(body), 4);
  record.set(body, HEADER_BYTES);
  return record;
}

export interface DecodedRecords {
  records: Document[];
  /** bytes of whole, valid records from the start of the buffer */
  validLength: number;
  /** bytes of a torn record after them (up to its last non-zero byte); 0 when there is none */
  tornBytes: number;
}

export class CorruptRecordError extends Error {}

/** the smallest BSON document: a length and a terminating zero */
const MIN_PAYLOAD_BYTES = 5;

export function decodeRecords(buffer: Buffer, file: string): DecodedRecords {
  const records: Document[] = [];
  let offset = 0;
  for (;;) {
    const end = wholeRecordEnd(buffer, offset);
    if (end === null) break;
    records.push(
      BSON.deserialize(buffer.subarray(offset + HEADER_BYTES, end), DESERIALIZE_OPTIONS),
    );
    offset = end;
  }
  const dataEnd = endOfData(buffer, offset);
  if (dataEnd <= claimedEnd(buffer, offset) && !wholeRecordAfter(buffer, offset, dataEnd))
    return { records, validLength: offset, tornBytes: dataEnd - offset };
  const length = buffer.readUInt32LE(offset);
  const wrong =
    length < MIN_PAYLOAD_BYTES
      ? `has an impossible length (${length})`
      : offset + HEADER_BYTES + length > buffer.length
        ? `claims a length (${length}) past the end of the file`
        : 'fails its checksum';
  throw new CorruptRecordError(
    `${file}: record at byte ${offset} ${wrong} and is not the last one: records after it may have been acknowledged, so recovery stops instead of dropping them`,
  );
}

/** Where the whole, valid record at `offset` ends, or null when there is none there. */
function wholeRecordEnd(buffer: Buffer, offset: number): number | null {
  if (buffer.length - offset < HEADER_BYTES) return null;
  const length = buffer.readUInt32LE(offset);
  const end = offset + HEADER_BYTES + length;
  if (length < MIN_PAYLOAD_BYTES || end > buffer.length) return null;
  const valid =
    crc32(buffer.subarray(offset + HEADER_BYTES, end)) === buffer.readUInt32LE(offset + 4);
  return valid ? end : null;
}

/**
 * Whether a whole, valid record starts after `offset` and before `dataEnd`. A BSON payload
 * starts with its own length and ends with a zero, which rules out almost every position before
 * the checksum is computed.
 */
function wholeRecordAfter(buffer: Buffer, offset: number, dataEnd: number): boolean {
  for (let at = offset + 1; at < dataEnd && at + HEADER_BYTES + 4 <= buffer.length; at++) {
    const length = buffer.readUInt32LE(at);
    const end = at + HEADER_BYTES + length;
    if (length < MIN_PAYLOAD_BYTES || end > buffer.length) continue;
    if (buffer.readUInt32LE(at + HEADER_BYTES) !== length || buffer[end - 1] !== 0) continue;
    if (wholeRecordEnd(buffer, at) !== null) return true;
  }
  return false;
}

/** Where the record at `offset` would end by its header, at most the end of the buffer. */
function claimedEnd(buffer: Buffer, offset: number): number {
  if (buffer.length - offset < HEADER_BYTES) return buffer.length;
  return Math.min(buffer.length, offset + HEADER_BYTES + buffer.readUInt32LE(offset));
}

/** One past the last non-zero byte at or after `from` (`from` itself when only zeros follow). */
function endOfData(buffer: Buffer, from: number): number {
  let end = buffer.length;
  while (end > from && buffer[end - 1] === 0) end--;
  return end;
}

/**
 * Writes every byte of `buffers` at `position`, or at the file's current position when it is
 * omitted (its end, in append mode); returns how many bytes that was.
 */
export async function writeFully(
  file: FileHandle,
  buffers: readonly Buffer[],
  position?: number,
): Promise<number> {
  let pending = buffers.filter((buffer) => buffer.length > 0);
  let total = 0;
  while (pending.length > 0) {
    const at = position === undefined ? undefined : position + total;
    const { bytesWritten } = await file.writev(pending, at);
    total += bytesWritten;
    pending = unwritten(pending, bytesWritten);
  }
  return total;
}

/** `writeFully` without the thread pool: the same checks, blocking the calling thread. */
export function writeFullySync(fd: number, buffers: readonly Buffer[], position: number): number {
  let pending = buffers.filter((buffer) => buffer.length > 0);
  let total = 0;
  while (pending.length > 0) {
    const bytesWritten = writevSync(fd, pending, position + total);
    total += bytesWritten;
    pending = unwritten(pending, bytesWritten);
  }
  return total;
}

/** What of `buffers` a write that stored `bytesWritten` of them left; a write of none fails. */
function unwritten(buffers: Buffer[], bytesWritten: number): Buffer[] {
  if (bytesWritten === 0) {
    throw Object.assign(new Error('a write stored no bytes'), { code: 'EIO' });
  }
  let skip = bytesWritten;
  const rest: Buffer[] = [];
  for (const buffer of buffers) {
    if (skip >= buffer.length) skip -= buffer.length;
    else {
      rest.push(skip > 0 ? buffer.subarray(skip) : buffer);
      skip = 0;
    }
  }
  return rest;
}
