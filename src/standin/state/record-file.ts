/**
 * The on-disk record format shared by the journal and the snapshot: each record is
 * `[uint32 LE length of the BSON payload][uint32 LE CRC-32 of the payload][BSON payload]`.
 * A record whose header or payload runs past the end of the file, or whose checksum fails as
 * the file's last record, is a torn write (the process died mid-append): reading stops before
 * it and reports where the valid part ends, so the caller can truncate it away. A bad record
 * followed by more bytes is corruption, not a torn tail, and is an error naming the offset:
 * records after it were acknowledged and must not be dropped silently.
 *
 * `writeFully` is the one way records reach a file: a write may store fewer bytes than asked
 * (a filesystem filling up stores what fits and says how much), so it writes the rest until all
 * is written or the system refuses with an error (ENOSPC, EIO, ...), which it throws. Callers
 * never count a record as written on the word of a single write call.
 */
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
  /** true when bytes after `validLength` are a torn last record */
  torn: boolean;
}

export class CorruptRecordError extends Error {}

export function decodeRecords(buffer: Buffer, file: string): DecodedRecords {
  const records: Document[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    if (buffer.length - offset < HEADER_BYTES) break;
    const length = buffer.readUInt32LE(offset);
    const end = offset + HEADER_BYTES + length;
    if (end > buffer.length) break;
    const body = buffer.subarray(offset + HEADER_BYTES, end);
    if (crc32(body) !== buffer.readUInt32LE(offset + 4)) {
      if (end === buffer.length) break;
      throw new CorruptRecordError(
        `${file}: record at byte ${offset} fails its checksum and is not the last one`,
      );
    }
    records.push(BSON.deserialize(body, DESERIALIZE_OPTIONS));
    offset = end;
  }
  return { records, validLength: offset, torn: offset < buffer.length };
}

/** Writes every byte of `buffers` at the file's current position (its end, in append mode). */
export async function writeFully(file: FileHandle, buffers: readonly Buffer[]): Promise<number> {
  let pending = buffers.filter((buffer) => buffer.length > 0);
  let total = 0;
  while (pending.length > 0) {
    const { bytesWritten } = await file.writev(pending);
    if (bytesWritten === 0) {
      throw Object.assign(new Error('a write stored no bytes'), { code: 'EIO' });
    }
    total += bytesWritten;
    let skip = bytesWritten;
    const rest: Buffer[] = [];
    for (const buffer of pending) {
      if (skip >= buffer.length) skip -= buffer.length;
      else {
        rest.push(skip > 0 ? buffer.subarray(skip) : buffer);
        skip = 0;
      }
    }
    pending = rest;
  }
  return total;
}
