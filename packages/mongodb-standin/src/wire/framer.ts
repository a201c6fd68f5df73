/**
 * Splits a TCP byte stream into whole wire-protocol messages using the int32 length prefix.
 * A length below the 16-byte header or above the advertised maximum can never be valid, so it
 * is reported as a WireError at once instead of waiting for bytes that will not come.
 * `buffered` tells how many bytes wait for their message to complete, so the server can bound
 * what all connections hold together.
 */
import { WireError } from './wire-error';

export const HEADER_LENGTH = 16;
export const MAX_MESSAGE_SIZE = 48_000_000;

export class MessageFramer {
  private pending: Buffer[] = [];
  private pendingLength = 0;

  constructor(private readonly maxMessageSize = MAX_MESSAGE_SIZE) {}

  get buffered(): number {
    return this.pendingLength;
  }

  /** Adds received bytes and returns every message they complete (possibly none). */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingLength += chunk.length;
    const messages: Buffer[] = [];
    while (this.pendingLength >= 4) {
      const head = this.pending.length === 1 ? this.pending[0] : this.flatten();
      const length = head.readInt32LE(0);
      if (length < HEADER_LENGTH || length > this.maxMessageSize) {
        throw new WireError(
          `message length ${length} outside [${HEADER_LENGTH}, ${this.maxMessageSize}]`,
        );
      }
      if (this.pendingLength < length) break;
      const all = this.flatten();
      messages.push(all.subarray(0, length));
      const rest = all.subarray(length);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingLength = rest.length;
    }
    return messages;
  }

  private flatten(): Buffer {
    if (this.pending.length > 1) this.pending = [Buffer.concat(this.pending, this.pendingLength)];
    return this.pending[0];
  }
}
