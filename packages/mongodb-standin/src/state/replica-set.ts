/**
 * What the stand-in says about itself as a one-member replica set (the default mode): the set's
 * name, its one member (`host:port`, at once primary and `me`), an electionId that never changes
 * (there is never another election), and the `$clusterTime` / `operationTime` every reply
 * carries. The topologyVersion and awaitable hellos are both modes' (hello-monitors.ts).
 *
 * The clock is the store's (engine/cluster-clock.ts), which stamps every change: a write's
 * operationTime is its last change's stamp, a read's the latest stamp. There are no keys: `$clusterTime.signature` is all zeros with keyId 0, as on a mongod without auth, and a
 * gossiped `$clusterTime` is accepted without checking its signature; like mongod, the clock
 * moves up to a later gossiped time (so times handed out before a quick restart stay in the
 * past). A readConcern `afterClusterTime` is always satisfied: there is one member, every
 * acknowledged write is applied before its reply.
 */
import { Binary, Long, ObjectId, Timestamp } from 'bson';
import { ClusterClock } from '../engine/cluster-clock';
import { NOT_PRIMARY_CODES } from '../engine/errors';
import { Document, isNumeric, isPlainDocument, numberOf } from '../engine/values';
import { HelloMonitors } from './hello-monitors';

export const DEFAULT_REPLICA_SET = 'rs0';
/** what hello reports; sessions (and their retryable-write records) expire after this */
export const LOGICAL_SESSION_TIMEOUT_MINUTES = 30;

const isNotPrimaryCode = (code: unknown) =>
  isNumeric(code) && NOT_PRIMARY_CODES.has(numberOf(code));

const ZERO_SIGNATURE = { hash: new Binary(Buffer.alloc(20)), keyId: Long.ZERO };

export class ReplicaSetIdentity {
  readonly electionId = new ObjectId('7fffffff0000000000000001');
  member = '';
  /** when the member became primary: once it serves, after recovery moved the clock */
  private elected = { ts: new Timestamp(Long.ZERO), date: new Date() };

  constructor(
    readonly setName: string,
    private readonly clock: ClusterClock,
    /** whose topologyVersion NotPrimary errors carry */
    private readonly monitors: HelloMonitors,
  ) {}

  /** The hello fields of the one member, primary and writable. */
  helloFields(): Document {
    const opTime = { ts: this.clock.now(), t: Long.ONE };
    const now = new Date();
    return {
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
      ...(notPrimary ? { topologyVersion: this.monitors.topologyVersion() } : {}),
      $clusterTime: { clusterTime: this.clock.now(), signature: ZERO_SIGNATURE },
      operationTime,
    };
  }
}
