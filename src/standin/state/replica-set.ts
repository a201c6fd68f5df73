/**
 * What the stand-in says about itself as a one-member replica set (the default mode): the set's
 * name, its one member (`host:port`, at once primary and `me`), an electionId and a
 * topologyVersion that never change (there is never another election), and the
 * `$clusterTime` / `operationTime` every reply carries.
 *
 * The clock is the store's (engine/cluster-clock.ts), which stamps every change: a write's
 * operationTime is its last change's stamp, a read's the latest stamp. There are no keys: `$clusterTime.signature` is all zeros with keyId 0, as on a mongod without auth, and a
 * gossiped `$clusterTime` is accepted without checking its signature; like mongod, the clock
 * moves up to a later gossiped time (so times handed out before a quick restart stay in the
 * past). A readConcern `afterClusterTime` is always satisfied: there is one member, every
 * acknowledged write is applied before its reply.
 */
import { Binary, Long, ObjectId, Timestamp } from 'bson';
import net from 'node:net';
import { ClusterClock } from '../engine/cluster-clock';
import { NOT_PRIMARY_CODES, STATE_CHANGE_CODES } from '../engine/errors';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { CommandRequest, OP_MSG } from '../wire/messages';

export const DEFAULT_REPLICA_SET = 'rs0';
/** what hello reports; sessions (and their retryable-write records) expire after this */
export const LOGICAL_SESSION_TIMEOUT_MINUTES = 30;
const STATE_CHANGE_NOTICE_MS = 100;

const isNotPrimaryCode = (code: unknown) =>
  isNumeric(code) && NOT_PRIMARY_CODES.has(numberOf(code));

const ZERO_SIGNATURE = { hash: new Binary(Buffer.alloc(20)), keyId: Long.ZERO };

export class ReplicaSetIdentity {
  readonly electionId = new ObjectId('7fffffff0000000000000001');
  readonly processId = new ObjectId();
  member = '';
  /** when the member became primary: once it serves, after recovery moved the clock */
  private elected = { ts: new Timestamp(Long.ZERO), date: new Date() };
  /** monitors' awaitable hellos waiting for a topology event */
  private readonly waitingMonitors = new Set<() => void>();

  constructor(
    readonly setName: string,
    private readonly clock: ClusterClock,
  ) {}

  /** The hello fields of the one member, primary and writable. */
  helloFields(): Document {
    const opTime = { ts: this.clock.now(), t: Long.ONE };
    const now = new Date();
    return {
      topologyVersion: this.topologyVersion(),
      hosts: [this.member],
      setName: this.setName,
      setVersion: 1,
      secondary: false,
      primary: this.member,
      me: this.member,
      electionId: this.electionId,
      lastWrite: { opTime, lastWriteDate: now, majorityOpTime: opTime, majorityWriteDate: now },
    };
  }

  /** The member is `host:port` and primary from now on. */
  serve(member: string): void {
    this.member = member;
    this.elected = { ts: this.clock.now(), date: new Date() };
  }

  /**
   * replSetGetStatus as mongod answers it for a one-member set: the member is primary and
   * healthy, term 1, the majority is itself (so every acknowledged write is majority-committed
   * and durable: replies wait for the journal). Fields mongod fills from machinery the stand-in
   * does not have (electionCandidateMetrics, lastStableRecoveryTimestamp, initial sync) are left
   * out rather than invented.
   */
  statusFields(startedAt: Date): Document {
    const now = new Date();
    const opTime = { ts: this.clock.now(), t: Long.ONE };
    // as mongod, the wall times of an optime are its seconds
    const opDate = new Date(opTime.ts.t * 1000);
    return {
      set: this.setName,
      date: now,
      myState: 1,
      term: Long.ONE,
      syncSourceHost: '',
      syncSourceId: -1,
      heartbeatIntervalMillis: Long.fromNumber(2000),
      majorityVoteCount: 1,
      writeMajorityCount: 1,
      votingMembersCount: 1,
      writableVotingMembersCount: 1,
      optimes: {
        lastCommittedOpTime: opTime,
        lastCommittedWallTime: opDate,
        readConcernMajorityOpTime: opTime,
        appliedOpTime: opTime,
        durableOpTime: opTime,
        lastAppliedWallTime: opDate,
        lastDurableWallTime: opDate,
      },
      members: [
        {
          _id: 0,
          name: this.member,
          health: 1,
          state: 1,
          stateStr: 'PRIMARY',
          uptime: Math.floor((now.getTime() - startedAt.getTime()) / 1000),
          optime: opTime,
          optimeDate: opDate,
          lastAppliedWallTime: opDate,
          lastDurableWallTime: opDate,
          syncSourceHost: '',
          syncSourceId: -1,
          infoMessage: '',
          electionTime: this.elected.ts,
          electionDate: this.elected.date,
          configVersion: 1,
          configTerm: 1,
          self: true,
          lastHeartbeatMessage: '',
        },
      ],
    };
  }

  private topologyVersion(): Document {
    return { processId: this.processId, counter: Long.ZERO };
  }

  /** Whether a client's topologyVersion is this member's current one. */
  isCurrent(topologyVersion: unknown): boolean {
    return (
      isPlainDocument(topologyVersion) &&
      topologyVersion.processId instanceof ObjectId &&
      topologyVersion.processId.equals(this.processId) &&
      isNumeric(topologyVersion.counter) &&
      numberOf(topologyVersion.counter) === 0
    );
  }

  /** A monitor's awaitable hello: topologyVersion and maxAwaitTimeMS, over OP_MSG. */
  isAwaitableHello(request: CommandRequest): boolean {
    const command = request.command;
    const name = Object.keys(command)[0];
    return (
      request.opCode === OP_MSG &&
      (name === 'hello' || name === 'isMaster' || name === 'ismaster') &&
      isPlainDocument(command.topologyVersion) &&
      isNumeric(command.maxAwaitTimeMS)
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
        this.waitingMonitors.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      socket.once('close', done);
      this.waitingMonitors.add(done);
    });
  }

  /**
   * A failCommand reply with a NotPrimary or shutdown error stands for a stepdown or a shutdown,
   * events after which a real member answers its monitors' awaitable hellos at once. The
   * topology itself never changes here, so the hellos are answered shortly after the error
   * (once the driver has taken it in and marked the server Unknown): the driver sees the member
   * again within STATE_CHANGE_NOTICE_MS instead of after heartbeatFrequencyMS.
   */
  noticeSimulatedStateChange(reply: Document): void {
    const concern = reply.writeConcernError;
    const isStateChange = (code: unknown) =>
      isNumeric(code) && STATE_CHANGE_CODES.has(numberOf(code));
    if (!isStateChange(reply.code) && !(isPlainDocument(concern) && isStateChange(concern.code)))
      return;
    setTimeout(() => {
      for (const wake of [...this.waitingMonitors]) wake();
    }, STATE_CHANGE_NOTICE_MS).unref();
  }

  /** Takes in the cluster time a client gossips with its command. */
  receive(command: Document): void {
    const gossiped = isPlainDocument(command.$clusterTime)
      ? command.$clusterTime.clusterTime
      : null;
    if (gossiped instanceof Timestamp) this.clock.advanceTo(gossiped);
  }

  /**
   * The reply with the fields every reply carries in a replica set, and the topologyVersion on errors of the NotPrimaryError category, as mongod adds it. (Not
   * on shutdown errors: mongod adds it to those only while really shutting down.)
   */
  gossip(reply: Document): Document {
    const operationTime = this.clock.now();
    const concern = reply.writeConcernError;
    const notPrimary =
      (reply.ok === 0 && isNotPrimaryCode(reply.code)) ||
      (isPlainDocument(concern) && isNotPrimaryCode(concern.code));
    return {
      ...reply,
      ...(notPrimary ? { topologyVersion: this.topologyVersion() } : {}),
      $clusterTime: { clusterTime: this.clock.now(), signature: ZERO_SIGNATURE },
      operationTime,
    };
  }
}
