/**
 * The server's logical clock: a Timestamp (seconds, increment) that never goes backwards, as
 * mongod's oplog timestamps. Every change the store applies is stamped with its own `advance()`
 * (changes.ts), so the stamps order the change history that change streams read; a
 * transaction's changes share one stamp. The seconds follow the wall clock, and recovery moves
 * the clock past every stamp it restores (`advanceTo`), so the clock also moves forward across
 * a restart even if the wall clock went back.
 */
import { Timestamp } from 'bson';

export class ClusterClock {
  private seconds = 0;
  private increment = 0;

  /** The stamp of a new change (strictly after every earlier one). */
  advance(): Timestamp {
    const wall = Math.floor(Date.now() / 1000);
    if (wall > this.seconds) {
      this.seconds = wall;
      this.increment = 1;
    } else this.increment++;
    return this.now();
  }

  /** The latest stamp given (a first stamp if none was). */
  now(): Timestamp {
    if (this.seconds === 0) return this.advance();
    return new Timestamp({ t: this.seconds, i: this.increment });
  }

  /** Makes every later stamp follow `stamp` (a restored one). */
  advanceTo(stamp: Timestamp): void {
    if (stamp.high > this.seconds || (stamp.high === this.seconds && stamp.low > this.increment)) {
      this.seconds = stamp.high;
      this.increment = stamp.low;
    }
  }
}
