/**
 * What the stand-in offers drivers' monitors in either mode, standalone or one-member replica
 * set, as a mongod 4.4+ does: a topologyVersion (this process's id and a counter that never
 * moves: there is never another election, and a shutdown ends the process) in every hello, and
 * awaitable hellos, which answer when the topology changes or after their maxAwaitTimeMS, so
 * drivers stream heartbeats instead of polling.
 *
 * A failCommand reply with a NotPrimary or shutdown error stands for a stepdown or a shutdown,
 * after which a real server answers its monitors' awaitable hellos at once. The topology itself
 * never changes here, so the hellos are answered shortly after the error (once the driver has
 * taken it in and marked the server Unknown): the driver sees the server again within
 * STATE_CHANGE_NOTICE_MS instead of after heartbeatFrequencyMS.
 */
import { Long, ObjectId } from 'bson';
import net from 'node:net';
import { STATE_CHANGE_CODES } from '../engine/errors';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { CommandRequest, OP_MSG } from '../wire/messages';

const STATE_CHANGE_NOTICE_MS = 100;

export class HelloMonitors {
  readonly processId = new ObjectId();
  /** monitors' awaitable hellos waiting for a topology event */
  private readonly waiting = new Set<() => void>();

  topologyVersion(): Document {
    return { processId: this.processId, counter: Long.ZERO };
  }

  /** Whether a client's topologyVersion is this server's current one. */
  isCurrent(topologyVersion: unknown): boolean {
    return (
      isPlainDocument(topologyVersion) &&
      topologyVersion.processId instanceof ObjectId &&
      topologyVersion.processId.equals(this.processId) &&
      isNumeric(topologyVersion.counter) &&
      numberOf(topologyVersion.counter) === 0
    );
  }

  /** Whether a hello is a monitor's awaitable one: topologyVersion and maxAwaitTimeMS, over OP_MSG. */
  isAwaitable(hello: CommandRequest): boolean {
    return (
      hello.opCode === OP_MSG &&
      isPlainDocument(hello.command.topologyVersion) &&
      isNumeric(hello.command.maxAwaitTimeMS)
    );
  }

  /**
   * Waits `ms` for a topology event, for a monitor's awaitable hello: less when the socket
   * closes or a fail point simulates a state change.
   */
  awaitTopologyEvent(ms: number, socket: net.Socket): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        socket.off('close', done);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      socket.once('close', done);
      this.waiting.add(done);
    });
  }

  /** Wakes the waiting monitors soon after a simulated stepdown or shutdown (see the header). */
  noticeSimulatedStateChange(reply: Document): void {
    const concern = reply.writeConcernError;
    const isStateChange = (code: unknown) =>
      isNumeric(code) && STATE_CHANGE_CODES.has(numberOf(code));
    if (!isStateChange(reply.code) && !(isPlainDocument(concern) && isStateChange(concern.code)))
      return;
    setTimeout(() => {
      for (const wake of [...this.waiting]) wake();
    }, STATE_CHANGE_NOTICE_MS).unref();
  }
}
