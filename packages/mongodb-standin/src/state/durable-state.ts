/**
 * What a data directory holds, and how it is read back: the store, plus the state of journal
 * extensions (anything besides the documents that must survive a restart, e.g. sessions).
 *
 * Every journal record is a BSON document whose `op` names its kind. The store's own kinds are
 * the changes of engine/changes.ts; an extension declares its kinds in `ops`, writes its records
 * with `Journal.append` and reads them back in `replay`; a `group` record holds several records
 * that were written as one (`Journal.group`) and so are applied all or none after a crash (one
 * record, one checksum). A record of a kind nobody declares stops recovery with an error naming
 * it: skipping it would silently lose what it held. New kinds therefore need no format change;
 * removing a kind needs a migration.
 *
 * `readDirectory` loads the snapshot and replays the journal generations it does not contain,
 * in order, dropping a torn last record (the process died mid-append, so no reply depended on
 * it) and the zeros a journal file holds after its records (journal-file.ts). The journal uses
 * it at start, and `reload` after a failed write, to bring memory back to exactly what the disk
 * holds.
 *
 * The change history (change-history.ts) outlives snapshots: generations a snapshot contains are
 * kept, newest first, while they total at most the history's byte bound, and a start restores
 * their stamped changes (and the replayed ones) into the history without applying them, so a
 * change stream can resume across a restart from anywhere in that window. Records written
 * before changes were stamped (0.3) carry no cluster time and are not restored. A reload leaves
 * the history alone (the journal tells the server which changes to forget).
 */
import { readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { applyChange } from '../engine/apply-change';
import { Change, LoggedChange } from '../engine/changes';
import { Store } from '../engine/store';
import { Document } from '../engine/values';
import { CorruptRecordError, decodeRecords } from './record-file';
import { loadSnapshot } from './snapshot';

export const GROUP_OP = 'group';
/** every kind of store change (the type makes a new kind fail to compile until listed) */
const STORE_OP_LIST: Record<Change['op'], true> = {
  put: true,
  remove: true,
  createCollection: true,
  collectionOptions: true,
  renameCollection: true,
  dropCollection: true,
  dropDatabase: true,
  createIndex: true,
  dropIndex: true,
};
const STORE_OPS: ReadonlySet<string> = new Set(Object.keys(STORE_OP_LIST));
const JOURNAL_PATTERN = /^journal\.(\d+)$/;

/** State besides the store that lives in the data directory, in records of its own kinds. */
export interface JournalExtension {
  /** the record kinds (`op`) it writes with `Journal.append` and reads back in `replay` */
  readonly ops: readonly string[];
  /** applies one of its records (from the journal, or from a snapshot's `capture`) */
  replay(record: Document): void;
  /** its whole state as records of its kinds, captured synchronously for a snapshot */
  capture(): Document[];
  /** forgets everything, before the directory is read into it again */
  reset(): void;
}

/** Where a start restores the changes kept for change streams, and how many bytes of them. */
export interface HistoryRestore {
  maxBytes: number;
  restore: (change: LoggedChange) => void;
}

const NO_HISTORY: HistoryRestore = { maxBytes: 0, restore: () => undefined };

export interface DirectoryContents {
  journalRecords: number;
  /** bytes of valid records in the journal generations read */
  journalBytes: number;
  tornBytes: number;
  /** the newest generation present (0 when none), and the first one the snapshot lacks */
  newestGeneration: number;
  journalFrom: number;
}

export function journalName(generation: number): string {
  return `journal.${String(generation).padStart(6, '0')}`;
}

export async function journalGenerations(dir: string): Promise<number[]> {
  const generations: number[] = [];
  for (const name of await readdir(dir)) {
    const match = JOURNAL_PATTERN.exec(name);
    if (match) generations.push(Number(match[1]));
  }
  return generations.sort((a, b) => a - b);
}

/**
 * Of the generations a snapshot contains, the newest ones that together hold at most
 * `maxBytes`: kept for the change history.
 */
export async function generationsForHistory(
  dir: string,
  contained: number[],
  maxBytes: number,
): Promise<Set<number>> {
  const kept = new Set<number>();
  let bytes = 0;
  for (const generation of [...contained].sort((a, b) => b - a)) {
    const size = (await stat(path.join(dir, journalName(generation)))).size;
    bytes += size;
    if (bytes > maxBytes) break;
    if (size > 0) kept.add(generation); // an empty one holds no history
  }
  return kept;
}

export class DurableState {
  private readonly owners = new Map<string, JournalExtension>();

  constructor(
    readonly store: Store,
    extensions: readonly JournalExtension[] = [],
    readonly history: HistoryRestore = NO_HISTORY,
  ) {
    for (const extension of extensions) {
      for (const op of extension.ops) {
        if (STORE_OPS.has(op) || op === GROUP_OP || this.owners.has(op))
          throw new Error(`journal record kind '${op}' is declared twice`);
        this.owners.set(op, extension);
      }
    }
  }

  /** Applies one journal or snapshot record. */
  apply(record: Document, file = 'the journal'): void {
    const op = String(record.op);
    if (op === GROUP_OP) {
      for (const inner of record.records as Document[]) this.apply(inner, file);
    } else if (STORE_OPS.has(op)) {
      applyChange(this.store, record as unknown as Change);
    } else {
      const owner = this.owners.get(op);
      if (!owner)
        throw new CorruptRecordError(
          `${file}: a record of unknown kind '${op}' (a newer stand-in?)`,
        );
      owner.replay(record);
    }
  }

  /** Every extension's state as records, for a snapshot. */
  captureExtensions(): Document[] {
    return [...new Set(this.owners.values())].flatMap((extension) => extension.capture());
  }

  /** Empties the store and every extension and reads `dir` back into them (the history stays). */
  async reload(dir: string, log: (line: string) => void): Promise<void> {
    await this.store.reload(async () => {
      for (const extension of new Set(this.owners.values())) extension.reset();
      await this.readDirectory(dir, log, false);
    });
  }

  /**
   * Reads `dir` into this (empty) state: the snapshot, then the journal generations it does not
   * contain, truncating a torn last record. At a start (`atStart`; not when memory is read back
   * while a journal generation is open) it also deletes the generations the snapshot contains
   * beyond those kept for the change history, whose changes it restores into the history, and
   * the generations that hold no record.
   */
  async readDirectory(
    dir: string,
    log: (line: string) => void,
    atStart = true,
  ): Promise<DirectoryContents> {
    const journalFrom = await loadSnapshot(dir, this.store, (record, file) =>
      this.apply(record, file),
    );
    const generations = await journalGenerations(dir);
    const contents: DirectoryContents = {
      journalRecords: 0,
      journalBytes: 0,
      tornBytes: 0,
      newestGeneration: generations[generations.length - 1] ?? 0,
      journalFrom,
    };
    const kept = atStart
      ? await generationsForHistory(
          dir,
          generations.filter((generation) => generation < journalFrom),
          this.history.maxBytes,
        )
      : new Set<number>();
    for (const generation of generations) {
      const file = path.join(dir, journalName(generation));
      if (generation < journalFrom) {
        if (!atStart) continue;
        if (kept.has(generation))
          this.restoreHistory(decodeRecords(await readFile(file), file).records);
        else await rm(file);
        continue;
      }
      const buffer = await readFile(file);
      const decoded = decodeRecords(buffer, file);
      if (decoded.tornBytes > 0) {
        if (generation !== contents.newestGeneration) {
          throw new Error(`${file} ends in a torn record but is not the newest journal`);
        }
        contents.tornBytes = decoded.tornBytes;
        log(
          `MongoDB stand-in: dropped a torn last journal record (${contents.tornBytes} bytes) of ${file}`,
        );
      }
      // a generation with no record (a start that wrote nothing) holds nothing to keep: each
      // start opens a new one, so keeping them would grow the directory with every restart
      if (atStart && decoded.records.length === 0) {
        await rm(file);
        continue;
      }
      // the torn record, and the zeros written ahead of the records (journal-file.ts)
      if (decoded.validLength < buffer.length) await truncate(file, decoded.validLength);
      for (const record of decoded.records) this.apply(record, file);
      if (atStart) this.restoreHistory(decoded.records);
      contents.journalRecords += decoded.records.length;
      contents.journalBytes += decoded.validLength;
    }
    return contents;
  }

  private restoreHistory(records: Document[]): void {
    for (const record of records) {
      if (record.op === GROUP_OP) this.restoreHistory(record.records as Document[]);
      else if (record.ts && STORE_OPS.has(String(record.op)))
        this.history.restore(record as unknown as LoggedChange);
    }
  }
}
