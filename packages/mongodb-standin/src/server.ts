/**
 * The TCP side of the stand-in: accepts connections, frames and parses messages, applies the
 * failCommand fail point, dispatches to the command table and writes replies. Each connection
 * handles its messages strictly in order (as drivers expect); different connections interleave
 * only between whole commands, because command execution is synchronous. A malformed message
 * closes only its own connection, with the reason logged; a stand-in bug inside a command is
 * logged and answered with InternalError instead of taking the process down.
 *
 * With a journal (a data directory), no reply leaves before every change made so far is on
 * disk (state/journal.ts), so nothing acknowledged or read can be lost by a crash. After the
 * journal failed a write, each command first asks it for admission (a write may be refused
 * with OutOfDiskSpace; nothing runs while memory is read back from the disk), and runs in the
 * same synchronous step as the answer.
 *
 * A write outside a transaction that meets an open transaction's lock (engine/concurrency.ts)
 * is undone and run again once that transaction ends, as mongod makes it wait; a `maxTimeMS`
 * bounds the wait (MaxTimeMSExpired), and so does the transaction's lifetime limit.
 *
 * No client can exhaust it: connections beyond `maxConnections` are closed at once (as mongod
 * does past maxIncomingConnections); a message above `maxMessageBytes` closes its connection;
 * replies respect backpressure (a connection's next command waits until its last reply was
 * taken by the socket, and a connection with more than `maxQueuedReplyBytes` unsent is closed);
 * bytes buffered for incomplete messages are bounded across all connections; above
 * `memoryLimitBytes` of heap, commands that would grow the stored data are refused
 * with ExceededMemoryLimit (146) while everything else keeps working; cursors are bounded by
 * state/cursors.ts.
 *
 * Between commands, TTL indexes delete what has expired (engine/ttl.ts, state/ttl-monitor.ts),
 * each pass as one command of its own.
 */
import net from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { CursorLimits, CursorRegistry, DEFAULT_CURSOR_LIMITS } from './state/cursors';
import { ChangeHistory, DEFAULT_CHANGE_HISTORY_BYTES } from './state/change-history';
import { CommandContext, ConnectionInfo, ServerState } from './commands/context';
import { CommandError, ErrorCode, unsupported } from './engine/errors';
import { eachChange } from './engine/apply-change';
import { TransactionLockWait } from './engine/concurrency';
import { Store } from './engine/store';
import { Document, isNumeric, isPlainDocument, numberOf } from './engine/values';
import { Activity } from './state/activity';
import { FailPoints, FailureAction } from './state/fail-points';
import { TtlMonitor } from './state/ttl-monitor';
import { removeExpired } from './engine/ttl';
import { errorReply, runCommand } from './commands/registry';
import { canonicalName, commandNameOf, failPointNameOf } from './commands/command-names';
import { isHelloName, noteAppName } from './commands/hello';
import { Journal, JournalOptions, RecoveryReport } from './state/journal';
import { DEFAULT_TRANSACTION_LIFETIME_MS, TransactionTable } from './state/transactions';
import { isTransactionCommand, transactionErrorLabels } from './commands/transactions';
import { DEFAULT_REPLICA_SET, ReplicaSetIdentity } from './state/replica-set';
import { HelloMonitors } from './state/hello-monitors';
import { RetryableWrites, withRetryableWriteLabel } from './state/retryable-writes';
import { isSnapshotRead, SnapshotReads } from './state/snapshot-reads';
import { MAX_MESSAGE_SIZE, MessageFramer } from './wire/framer';
import {
  CommandRequest,
  MORE_TO_COME,
  parseMessage,
  serializeOpMsg,
  serializeReply,
} from './wire/messages';
import { WireError } from './wire/wire-error';

export type LogLine = (line: string) => void;

const NEVER_FAILED = new Set(['configureFailPoint']);

/** Commands that change the store (refused while the journal cannot write). */
const WRITE_COMMANDS = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'create',
  'createIndexes',
  'drop',
  'dropIndexes',
  'dropDatabase',
  'collMod',
  'renameCollection',
]);
/** Commands that make stored data grow (refused above the memory limit; cursors have their own bound). */
const GROWING_COMMANDS = new Set(['insert', 'update', 'findAndModify', 'create', 'createIndexes']);

export interface ServerLimits {
  maxConnections: number;
  maxMessageBytes: number;
  /** bytes of incomplete messages held for all connections together */
  maxBufferedBytes: number;
  /** bytes of replies one connection may have waiting to be sent before it is closed */
  maxQueuedReplyBytes: number;
  /** V8 heap in use above which growing commands are refused */
  memoryLimitBytes: number;
  cursors: CursorLimits;
  /** transactions open longer are aborted (mongod's transactionLifetimeLimitSeconds) */
  transactionLifetimeMs: number;
  /** bytes of changes kept for change streams to resume from (state/change-history.ts) */
  changeHistoryBytes: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 1_000,
  maxMessageBytes: MAX_MESSAGE_SIZE,
  maxBufferedBytes: 256 * 1024 * 1024,
  // one reply is at most a message (48 MB); a client reading its replies never comes near
  maxQueuedReplyBytes: 64 * 1024 * 1024,
  memoryLimitBytes: Math.floor(getHeapStatistics().heap_size_limit * 0.8),
  cursors: DEFAULT_CURSOR_LIMITS,
  transactionLifetimeMs: DEFAULT_TRANSACTION_LIFETIME_MS,
  changeHistoryBytes: DEFAULT_CHANGE_HISTORY_BYTES,
};

/**
 * Resolves once the socket has sent what it was given (at once if it has), or has closed;
 * meanwhile it reads nothing more, so a client that does not read meets TCP's backpressure.
 */
function drained(socket: net.Socket): Promise<void> {
  if (!socket.writableNeedDrain || socket.destroyed) return Promise.resolve();
  socket.pause();
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      socket.resume();
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A reply of a command inside a transaction that failed by fail point, labelled as mongod would. */
function withTransactionLabels(name: string, reply: Document): Document {
  const code = reply.ok === 0 && isNumeric(reply.code) ? numberOf(reply.code) : undefined;
  const concern = reply.writeConcernError;
  const concernCode =
    isPlainDocument(concern) && isNumeric(concern.code) ? numberOf(concern.code) : undefined;
  if (reply.errorLabels !== undefined) return reply;
  const labels = transactionErrorLabels(name, code, concernCode);
  return labels.length > 0 ? { ...reply, errorLabels: labels } : reply;
}

export class StandinServer {
  readonly state: ServerState;
  private readonly store = new Store();
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private nextConnectionId = 1;
  private nextRequestId = 1;
  private bufferedBytes = 0;
  private journal: Journal | null = null;
  private stopHistory: (() => void) | null = null;

  constructor(
    private readonly log: LogLine,
    private readonly limits: ServerLimits = DEFAULT_LIMITS,
    /** the replica set's name; null for a standalone */
    replSet: string | null = DEFAULT_REPLICA_SET,
    /** what `$$NOW` reads, in epoch milliseconds */
    clock: () => number = Date.now,
  ) {
    const store = this.store;
    const monitors = new HelloMonitors();
    this.state = {
      store,
      transactions: new TransactionTable(store, limits.transactionLifetimeMs),
      monitors,
      replica: replSet === null ? null : new ReplicaSetIdentity(replSet, store.clock, monitors),
      retryableWrites: new RetryableWrites(store, replSet !== null),
      snapshotReads: new SnapshotReads(store, store.clock),
      changes: new ChangeHistory(limits.changeHistoryBytes, store.clock.now()),
      cursors: new CursorRegistry(limits.cursors),
      failPoints: new FailPoints(),
      ttl: new TtlMonitor(() => this.removeExpired()),
      activity: new Activity(limits.maxConnections),
      startedAt: new Date(),
      port: 0,
      now: () => new Date(clock()),
    };
    this.server = net.createServer((socket) => this.accept(socket));
  }

  /** From now on every change goes to the history (recovery restores, it does not append). */
  private recordHistory(): void {
    this.stopHistory ??= this.store.observe((change) =>
      eachChange(change, (one) => this.state.changes.append(one)),
    );
  }

  /** Recovers the data directory into the (still empty) store and journals from then on. */
  async openDataDirectory(
    dir: string,
    options: Omit<JournalOptions, 'log'> = {},
  ): Promise<RecoveryReport> {
    const { journal, recovery } = await Journal.open(dir, this.store, {
      ...options,
      log: this.log,
      history: {
        maxBytes: this.limits.changeHistoryBytes,
        restore: (change) => {
          this.store.clock.advanceTo(change.ts);
          this.state.changes.restore(change);
        },
      },
      // a failed write dropped the changes after `written`: no cursor or stream may show them
      onRestored: (written) => {
        this.state.cursors.closeAll();
        this.state.changes.forgetAfter(written);
        this.state.snapshotReads.forgetAfter(written);
        // their snapshots were taken of the memory that was just replaced
        this.state.transactions.abortAll();
      },
    });
    this.journal = journal;
    return recovery;
  }

  listen(port: number, host: string): Promise<number> {
    this.recordHistory();
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        this.state.port = (this.server.address() as net.AddressInfo).port;
        this.state.replica?.serve(`${host}:${this.state.port}`);
        this.state.ttl.start();
        resolve(this.state.port);
      });
    });
  }

  async close(): Promise<void> {
    this.state.ttl.stop();
    for (const socket of this.sockets) socket.destroy();
    this.state.transactions.abortAll();
    this.state.changes.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.journal?.close();
  }

  private accept(socket: net.Socket): void {
    const connection: ConnectionInfo = { id: this.nextConnectionId++ };
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    if (this.sockets.size >= this.limits.maxConnections) {
      this.log(
        `MongoDB stand-in: connection refused because too many open connections: ${this.sockets.size} (${peer})`,
      );
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    this.sockets.add(socket);
    this.state.activity.connectionOpened();
    const framer = new MessageFramer(this.limits.maxMessageBytes);
    let queue: Promise<void> = Promise.resolve();
    const closeWith = (reason: string) => {
      if (socket.destroyed) return;
      this.log(`MongoDB stand-in: closing connection ${connection.id} from ${peer}: ${reason}`);
      socket.destroy();
    };
    socket.on('data', (chunk) => {
      this.state.activity.bytesIn(chunk.length);
      let messages: Buffer[];
      // bufferedBytes is the sum of every open connection's framer.buffered ('close' subtracts)
      const before = framer.buffered;
      try {
        messages = framer.push(chunk);
      } catch (error) {
        return closeWith((error as Error).message);
      } finally {
        this.bufferedBytes += framer.buffered - before;
      }
      if (this.bufferedBytes > this.limits.maxBufferedBytes) {
        return closeWith(
          `incomplete messages of all connections exceed ${this.limits.maxBufferedBytes} bytes`,
        );
      }
      for (const message of messages) {
        queue = queue
          .then(() => drained(socket))
          .then(() => this.handle(message, socket, connection))
          .catch((error: unknown) => {
            closeWith(
              error instanceof WireError
                ? error.message
                : `internal error: ${(error as Error).stack}`,
            );
          });
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (!this.sockets.delete(socket)) return;
      this.bufferedBytes -= framer.buffered;
      this.state.activity.connectionClosed();
    });
  }

  private async handle(
    message: Buffer,
    socket: net.Socket,
    connection: ConnectionInfo,
  ): Promise<void> {
    if (socket.destroyed) return;
    const request = parseMessage(message);
    if (request.oversized !== undefined) {
      const refusal = new CommandError(ErrorCode.BSONObjectTooLarge, request.oversized);
      return this.reply(socket, request, errorReply(refusal));
    }
    const sent = commandNameOf(request.command);
    this.state.activity.command(sent, request.command);
    const name = canonicalName(sent);
    noteAppName(name, request.command, connection);
    const failure = NEVER_FAILED.has(name)
      ? null
      : this.state.failPoints.take(name, connection.appName);
    const context: CommandContext = { server: this.state, database: request.database, connection };
    this.state.replica?.receive(request.command);
    if (!failure && isHelloName(name) && this.state.monitors.isAwaitable(request)) {
      return this.streamHello(request, socket, context);
    }
    let reply: Document;
    if (failure) {
      const injected = await this.inject(failure, request.command, socket);
      if (socket.destroyed) return;
      reply = injected ?? (await this.admitAndExecute(request, context));
      if (!injected && failure.writeConcernError)
        reply = { ...reply, writeConcernError: failure.writeConcernError };
      if (failure.errorLabels && (injected || failure.writeConcernError))
        reply = { ...reply, errorLabels: failure.errorLabels };
      this.state.monitors.noticeSimulatedStateChange(reply);
      if (!failure.errorLabels && isTransactionCommand(request.command))
        reply = withTransactionLabels(name, reply);
    } else {
      reply = this.journal?.troubled
        ? await this.admitAndExecute(request, context)
        : await this.execute(request, context);
    }
    reply = this.replicaSetFields(request.command, reply, failure);
    if (this.journal) {
      try {
        await this.journal.durable();
      } catch (error) {
        reply = errorReply(error as CommandError);
      }
      if (socket.destroyed) return;
    }
    if (context.closeConnection) return void socket.destroy();
    this.reply(socket, request, reply);
  }

  /** Sends the reply to `request`, unless the client asked for none (moreToCome). */
  private reply(socket: net.Socket, request: CommandRequest, reply: Document): void {
    if (request.moreToCome) return;
    this.send(socket, serializeReply(request, reply, this.nextRequestId++));
  }

  /**
   * Writes a reply. The next command of the connection waits until the socket has taken it
   * (drained), so a client that does not read holds at most about one reply here; one whose
   * unsent replies still pass maxQueuedReplyBytes is closed, and their memory returned.
   */
  private send(socket: net.Socket, bytes: Buffer): void {
    this.state.activity.bytesOut(bytes.length);
    socket.write(bytes);
    if (socket.writableLength > this.limits.maxQueuedReplyBytes) {
      this.log(
        `MongoDB stand-in: closing a connection from ${socket.remoteAddress}:${socket.remotePort}: ${socket.writableLength} bytes of replies unread, above ${this.limits.maxQueuedReplyBytes}`,
      );
      socket.destroy();
    }
  }

  /** Starts the command once the journal admits it (synchronously after its answer). */
  private async admitAndExecute(
    request: CommandRequest,
    context: CommandContext,
  ): Promise<Document> {
    const journal = this.journal;
    if (!journal) return this.execute(request, context);
    const isWrite = WRITE_COMMANDS.has(failPointNameOf(request.command));
    let refusal: CommandError | null;
    // a restore may begin between admit's answer and this continuation: ask until none runs
    do refusal = await journal.admit(isWrite);
    while (journal.restoring);
    return refusal ? errorReply(refusal) : this.execute(request, context);
  }

  /**
   * Runs the command; when it meets a transaction's lock, undoes it, waits for that transaction
   * to end (at most the command's maxTimeMS) and runs it again.
   */
  private async execute(request: CommandRequest, context: CommandContext): Promise<Document> {
    const maxTimeMS = isNumeric(request.command.maxTimeMS)
      ? numberOf(request.command.maxTimeMS)
      : 0;
    const deadline = maxTimeMS > 0 ? Date.now() + maxTimeMS : Infinity;
    for (;;) {
      let waitFor: TransactionLockWait | null = null;
      let reply: Document | Promise<Document> | undefined;
      // only the synchronous part is one command to the store (a change stream waits after it)
      this.store.beginCommand();
      try {
        reply = this.executeOnce(request, context);
      } catch (error) {
        if (!(error instanceof TransactionLockWait)) throw error;
        waitFor = error;
      } finally {
        if (waitFor) this.store.rollbackCommand();
        else this.endCommand();
      }
      if (!waitFor) return reply!;
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        waitFor.owner.ended.then(() => true),
        ...(left < Infinity
          ? [
              new Promise<false>(
                (resolve) => (timer = setTimeout(resolve, Math.max(0, left), false)),
              ),
            ]
          : []),
      ]);
      clearTimeout(timer); // a wait that ended early leaves no timer behind
      if (!ended) {
        return errorReply(
          new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit'),
        );
      }
    }
  }

  /**
   * A TTL pass (engine/ttl.ts) as one command of its own, journaled as one record. While the
   * journal cannot write it is skipped; a pass that fails is undone and logged, and the next one
   * tries again.
   */
  private removeExpired(): void {
    if (this.journal?.troubled) return;
    this.store.beginCommand();
    let failure: Error | null = null;
    try {
      removeExpired(this.store, Date.now());
    } catch (error) {
      failure = error as Error;
    } finally {
      if (failure) this.store.rollbackCommand();
      else this.endCommand();
    }
    if (failure) this.log(`MongoDB stand-in: TTL pass failed, undone: ${failure.stack}`);
  }

  /**
   * Hands what the command changed to the listeners; the journal writes it as one record, so a
   * crash keeps all of a command's changes or none: a retryable write and its record
   * (state/retryable-writes.ts) together, and fewer, larger records to encode.
   */
  private endCommand(): void {
    if (this.journal) this.journal.group(() => this.store.endCommand());
    else this.store.endCommand();
  }

  /**
   * The awaitable hello of server monitoring (the driver sends it once hello reports a
   * topologyVersion): answered after maxAwaitTimeMS while the topology is unchanged (it never
   * changes here) and, with exhaustAllowed, again every maxAwaitTimeMS as a stream of moreToCome
   * replies, each answering the one before, until the connection closes.
   */
  private async streamHello(
    request: CommandRequest,
    socket: net.Socket,
    context: CommandContext,
  ): Promise<void> {
    const wait = numberOf(request.command.maxAwaitTimeMS);
    let responseTo = request.requestId;
    let first = true;
    do {
      if (!first || this.state.monitors.isCurrent(request.command.topologyVersion))
        await this.state.monitors.awaitTopologyEvent(wait, socket);
      first = false;
      if (socket.destroyed) return;
      const answer = await this.execute(request, context);
      const reply = this.replicaSetFields(request.command, answer, null);
      const requestId = this.nextRequestId++;
      const flags = request.exhaustAllowed ? MORE_TO_COME : 0;
      this.send(socket, serializeOpMsg(reply, requestId, responseTo, flags));
      responseTo = requestId;
    } while (request.exhaustAllowed && !socket.destroyed);
  }

  /** In a replica set: $clusterTime and operationTime, and the RetryableWriteError label. */
  private replicaSetFields(
    command: Document,
    reply: Document,
    failure: FailureAction | null,
  ): Document {
    const replica = this.state.replica;
    if (!replica) return reply;
    const labelled = failure?.errorLabels ? reply : withRetryableWriteLabel(command, reply);
    return replica.gossip(labelled);
  }

  private executeOnce(
    request: CommandRequest,
    context: CommandContext,
  ): Document | Promise<Document> {
    const name = failPointNameOf(request.command);
    const refusal = this.refusal(name);
    if (refusal) return errorReply(refusal);
    const internalError = (error: unknown) => {
      if (error instanceof TransactionLockWait) throw error;
      this.log(
        `MongoDB stand-in: internal error in ${commandNameOf(request.command)}: ${(error as Error).stack}`,
      );
      return errorReply(
        new CommandError(
          ErrorCode.InternalError,
          `MongoDB stand-in internal error: ${(error as Error).message}`,
        ),
      );
    };
    try {
      const reply = this.runOnce(request.command, name, context);
      return reply instanceof Promise ? reply.catch(internalError) : reply;
    } catch (error) {
      return internalError(error);
    }
  }

  /**
   * Runs the command, a retryable write at most once per lsid and txnNumber
   * (state/retryable-writes.ts), with the onPrimaryTransactionalWrite fail point inside it.
   */
  private runOnce(
    command: Document,
    name: string,
    context: CommandContext,
  ): Document | Promise<Document> {
    const writes = this.state.retryableWrites;
    try {
      if (isSnapshotRead(command)) return this.readSnapshot(command, name, context);
      if (!writes.applies(command, name)) return runCommand(command, context);
      return writes.run(command, name, () => {
        // only a write that runs fires it, never a retry answered from its record
        const fault = this.state.failPoints.takeTransactionalWrite();
        if (fault?.closeConnection) context.closeConnection = true;
        const code = fault?.failBeforeCommitExceptionCode;
        if (code !== undefined)
          throw new CommandError(code, 'Failing write for test due to failPoint');
        const reply = runCommand(command, context);
        if (reply instanceof Promise) throw new Error(`${name} must run synchronously`);
        return reply;
      });
    } catch (error) {
      if (error instanceof CommandError) return errorReply(error);
      throw error;
    }
  }

  /** A snapshot read (state/snapshot-reads.ts): the command runs against the store as of then. */
  private readSnapshot(command: Document, name: string, context: CommandContext): Document {
    if (!this.state.replica) throw unsupported(`readConcern level 'snapshot' on a standalone`);
    return this.state.snapshotReads.run(command, name, (store) => {
      const reply = runCommand(command, { ...context, server: { ...context.server, store } });
      if (reply instanceof Promise) throw new Error(`${name} must run synchronously`);
      return reply;
    });
  }

  /** Why a command may not run now: a full heap refuses growth. */
  private refusal(name: string): CommandError | null {
    if (!GROWING_COMMANDS.has(name)) return null;
    const heap = getHeapStatistics().used_heap_size;
    if (heap > this.limits.memoryLimitBytes) {
      return new CommandError(
        ErrorCode.ExceededMemoryLimit,
        `the MongoDB stand-in uses ${Math.round(heap / 2 ** 20)} MB of heap, above its limit of ${Math.round(this.limits.memoryLimitBytes / 2 ** 20)} MB: ${name} refused (reads, deletes and drops still work)`,
      );
    }
    return null;
  }

  /** Applies a fail point's action; returns the error reply to send, or null to run the command. */
  private async inject(
    failure: FailureAction,
    command: Document,
    socket: net.Socket,
  ): Promise<Document | null> {
    if (failure.blockMs > 0) {
      const maxTimeMS = isNumeric(command.maxTimeMS) ? numberOf(command.maxTimeMS) : 0;
      if (maxTimeMS > 0 && maxTimeMS < failure.blockMs) {
        await delay(maxTimeMS);
        return errorReply(
          new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit'),
        );
      }
      await delay(failure.blockMs);
    }
    if (failure.closeConnection) {
      socket.destroy();
      return null;
    }
    if (failure.errorCode !== undefined) {
      return errorReply(
        new CommandError(failure.errorCode, "Failing command via 'failCommand' failpoint"),
      );
    }
    return null;
  }
}
