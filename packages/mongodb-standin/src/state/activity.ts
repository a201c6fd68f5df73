/**
 * What the server has done since it started, for serverStatus: connections (open now, ever
 * accepted), bytes and requests on the wire, and mongod's opcounters (insert/update/delete
 * count statements, query/getmore/command count commands, as mongod counts them). Counts only
 * ever grow, except open connections; nothing here changes what any command answers.
 */
import { Document } from '../engine/values';

/** Write commands and the array whose statements mongod counts one by one. */
const STATEMENTS_OF = { insert: 'documents', update: 'updates', delete: 'deletes' } as const;
/** mongod's opcounter each read command feeds; every other command counts as `command`. */
const OPCOUNTER_OF: Record<string, 'query' | 'getmore'> = { find: 'query', getMore: 'getmore' };

export class Activity {
  constructor(private readonly maxConnections: number) {}

  private current = 0;
  private totalCreated = 0;
  private received = 0;
  private sent = 0;
  private requests = 0;
  private readonly opcounters = {
    insert: 0,
    query: 0,
    update: 0,
    delete: 0,
    getmore: 0,
    command: 0,
  };

  connectionOpened(): void {
    this.current++;
    this.totalCreated++;
  }

  connectionClosed(): void {
    this.current--;
  }

  bytesIn(count: number): void {
    this.received += count;
  }

  bytesOut(count: number): void {
    this.sent += count;
  }

  /** A command arrived (`name` as sent first in `command`). */
  command(name: string, command: Document): void {
    this.requests++;
    if (name in STATEMENTS_OF) {
      const kind = name as keyof typeof STATEMENTS_OF;
      const statements = command[STATEMENTS_OF[kind]];
      this.opcounters[kind] += Array.isArray(statements) ? statements.length : 0;
    } else this.opcounters[OPCOUNTER_OF[name] ?? 'command']++;
  }

  report(): Document {
    return {
      connections: {
        current: this.current,
        available: Math.max(0, this.maxConnections - this.current),
        totalCreated: this.totalCreated,
      },
      network: { bytesIn: this.received, bytesOut: this.sent, numRequests: this.requests },
      opcounters: { ...this.opcounters },
    };
  }
}
