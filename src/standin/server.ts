/**
 * The TCP side of the stand-in: accepts connections, frames and parses messages, applies the
 * failCommand fail point, dispatches to the command table and writes replies. Each connection
 * handles its messages strictly in order (as drivers expect); different connections interleave
 * only between whole commands, because command execution is synchronous. A malformed message
 * closes only its own connection, with the reason logged; a stand-in bug inside a command is
 * logged and answered with InternalError instead of taking the process down.
 */
import net from 'node:net';
import { CursorRegistry } from './state/cursors';
import { CommandContext, ConnectionInfo, ServerState } from './commands/context';
import { CommandError } from './engine/errors';
import { Store } from './engine/store';
import { Document, isNumeric, numberOf } from './engine/values';
import { FailPoints, FailureAction } from './state/fail-points';
import { commandNameOf, errorReply, failPointNameOf, runCommand } from './commands/registry';
import { MessageFramer } from './wire/framer';
import { CommandRequest, parseMessage, serializeReply } from './wire/messages';
import { WireError } from './wire/wire-error';

export type LogLine = (line: string) => void;

const NEVER_FAILED = new Set(['configureFailPoint']);

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class StandinServer {
  readonly state: ServerState;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private nextConnectionId = 1;
  private nextRequestId = 1;

  constructor(private readonly log: LogLine) {
    this.state = {
      store: new Store(),
      cursors: new CursorRegistry(),
      failPoints: new FailPoints(),
      startedAt: new Date(),
      port: 0,
    };
    this.server = net.createServer((socket) => this.accept(socket));
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        this.state.port = (this.server.address() as net.AddressInfo).port;
        resolve(this.state.port);
      });
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    this.sockets.add(socket);
    const connection: ConnectionInfo = { id: this.nextConnectionId++ };
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    const framer = new MessageFramer();
    let queue: Promise<void> = Promise.resolve();
    const closeWith = (reason: string) => {
      if (socket.destroyed) return;
      this.log(`MongoDB stand-in: closing connection ${connection.id} from ${peer}: ${reason}`);
      socket.destroy();
    };
    socket.on('data', (chunk) => {
      let messages: Buffer[];
      try {
        messages = framer.push(chunk);
      } catch (error) {
        return closeWith((error as Error).message);
      }
      for (const message of messages) {
        queue = queue
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
    socket.on('close', () => this.sockets.delete(socket));
  }

  private async handle(
    message: Buffer,
    socket: net.Socket,
    connection: ConnectionInfo,
  ): Promise<void> {
    if (socket.destroyed) return;
    const request = parseMessage(message);
    const name = failPointNameOf(request.command);
    const failure = NEVER_FAILED.has(name)
      ? null
      : this.state.failPoints.take(name, connection.appName);
    const context: CommandContext = { server: this.state, database: request.database, connection };
    let reply: Document;
    if (failure) {
      const injected = await this.inject(failure, request.command, socket);
      if (socket.destroyed) return;
      reply = injected ?? this.execute(request, context);
      if (!injected && failure.writeConcernError)
        reply = { ...reply, writeConcernError: failure.writeConcernError };
      if (failure.errorLabels && (injected || failure.writeConcernError))
        reply = { ...reply, errorLabels: failure.errorLabels };
    } else {
      reply = this.execute(request, context);
    }
    if (!request.moreToCome) socket.write(serializeReply(request, reply, this.nextRequestId++));
  }

  private execute(request: CommandRequest, context: CommandContext): Document {
    try {
      return runCommand(request.command, context);
    } catch (error) {
      this.log(
        `MongoDB stand-in: internal error in ${commandNameOf(request.command)}: ${(error as Error).stack}`,
      );
      return errorReply(
        new CommandError(1, `MongoDB stand-in internal error: ${(error as Error).message}`),
      );
    }
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
        return errorReply(new CommandError(50, 'operation exceeded time limit'));
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
