/**
 * Pages of users: a cursor connection over `_id` (Relay's first/after, last/before), oldest or
 * newest first, narrowed by strategy or inviter, and the batched pages of invitees.
 *
 * Invariants: a cursor is a user id (its decimal string), so a page resumes exactly after (or
 * before) that id whatever was created or deleted since; a page reads at most `size + 1` documents
 * (the extra one tells whether another page follows); `totalCount` costs a command only when asked
 * for. Only documents `toUser` can read are counted and listed (see `READABLE_USER`). Input reaches
 * filters as values only. Invitees of many users (a page of users, each with `invitees`) are read
 * together in two commands (`pagesOfInvitees`), at the price of reading every invitee id of those
 * inviters: exact pages for any number of inviters, without a query per user.
 */
import { Long } from 'bson';
import type { Filter } from 'mongodb';
import { BadUserInputError } from '../errors';
import { PAGE_SIZE } from '../limits';
import { countCommand, type CommandTally } from '../database/index';
import { isIdStrategy, type IdStrategy } from '../strategies/index';
import {
  numericId,
  READABLE_USER,
  toUser,
  type User,
  type UserDocument,
  type UsersCollection,
} from './model';
import { parseUserId } from './validation';

export type UserOrder = 'ASC' | 'DESC';

export interface UserPageRequest {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  order: UserOrder;
  filter?: { createdWith?: IdStrategy; invitedById?: string };
}

export interface UserPage {
  users: User[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Users matching the filter, cursors aside; one `count` command, sent only when called. */
  totalCount(): Promise<number>;
}

/** A validated request as queries: the filter, the window the cursors leave, how to read it. */
interface PagePlan {
  /** The filter without the cursors (what `totalCount` counts). */
  base: Filter<UserDocument>;
  /** `_id` bounds of the cursors, for the window and for "is there anything beyond". */
  after: Long | null;
  before: Long | null;
  size: number;
  /** 1: ascending ids. */
  direction: 1 | -1;
  /** `last`: the window is read from its end and reversed. */
  fromEnd: boolean;
}

function pageSize(value: number, field: 'first' | 'last'): number {
  if (!Number.isInteger(value) || value < 1 || value > PAGE_SIZE.max) {
    throw new BadUserInputError(`${field} must be 1 to ${PAGE_SIZE.max}.`, { field });
  }
  return value;
}

function cursor(value: string | null | undefined, field: 'after' | 'before'): Long | null {
  if (value === undefined || value === null) return null;
  const id = parseUserId(value);
  if (id === null) {
    throw new BadUserInputError(`${field} must be a cursor returned by a previous page.`, {
      field,
    });
  }
  return Long.fromNumber(id);
}

/** The filter of `request.filter` over the readable users; BAD_USER_INPUT names a bad field. */
export function userFilter(filter: UserPageRequest['filter']): Filter<UserDocument> {
  const base: Filter<UserDocument> = { ...READABLE_USER };
  if (filter?.createdWith !== undefined) {
    if (!isIdStrategy(filter.createdWith)) {
      throw new BadUserInputError('createdWith must be an id strategy.', { field: 'createdWith' });
    }
    base.createdWith = filter.createdWith;
  }
  if (filter?.invitedById !== undefined) {
    const inviter = parseUserId(filter.invitedById);
    if (inviter === null) {
      throw new BadUserInputError('invitedById must be a user id.', { field: 'invitedById' });
    }
    base.invitedById = Long.fromNumber(inviter);
  }
  return base;
}

function planPage(request: UserPageRequest): PagePlan {
  const { first, last, order } = request;
  if (first !== undefined && first !== null && last !== undefined && last !== null) {
    throw new BadUserInputError('Give first or last, not both.', { field: 'last' });
  }
  const fromEnd = last !== undefined && last !== null;
  const size = fromEnd ? pageSize(last, 'last') : pageSize(first ?? PAGE_SIZE.default, 'first');
  const ascending = order !== 'DESC';
  return {
    base: userFilter(request.filter),
    after: cursor(request.after, 'after'),
    before: cursor(request.before, 'before'),
    size,
    direction: ascending !== fromEnd ? 1 : -1,
    fromEnd,
  };
}

/** `_id` conditions: beyond `after` and short of `before`, in the page's order. */
function windowOf(plan: PagePlan, ascending: boolean): Filter<UserDocument> {
  const ids: Record<string, Long> = {};
  if (plan.after !== null) ids[ascending ? '$gt' : '$lt'] = plan.after;
  if (plan.before !== null) ids[ascending ? '$lt' : '$gt'] = plan.before;
  return Object.keys(ids).length === 0
    ? plan.base
    : { ...plan.base, _id: { ...READABLE_USER._id, ...ids } };
}

/** The condition "at or before the cursor on its far side": what a previous/next page would hold. */
function beyondCursor(plan: PagePlan, ascending: boolean): Filter<UserDocument> | null {
  const edge = plan.fromEnd ? plan.before : plan.after;
  if (edge === null) return null;
  const before = ascending !== plan.fromEnd;
  return { ...plan.base, _id: { ...READABLE_USER._id, [before ? '$lte' : '$gte']: edge } };
}

function isAscending(request: UserPageRequest): boolean {
  return request.order !== 'DESC';
}

/** Turns up to `size + 1` documents read in the plan's direction into the page's users. */
function pageOf(plan: PagePlan, docs: UserDocument[]): { users: User[]; more: boolean } {
  const users = docs
    .slice(0, plan.size)
    .map(toUser)
    .filter((user): user is User => user !== null);
  if (plan.fromEnd) users.reverse();
  return { users, more: docs.length > plan.size };
}

async function exists(
  users: UsersCollection,
  filter: Filter<UserDocument> | null,
  tally?: CommandTally,
): Promise<boolean> {
  if (filter === null) return false;
  countCommand(tally);
  const found = await users.collection
    .find(filter, users.options({ projection: { _id: 1 } }))
    .limit(1)
    .toArray();
  return found.length > 0;
}

/** One page of users (see the header); BAD_USER_INPUT for a bad size, cursor or filter. */
export async function pageOfUsers(
  users: UsersCollection,
  request: UserPageRequest,
): Promise<UserPage> {
  const plan = planPage(request);
  const ascending = isAscending(request);
  const [docs, beyond] = await Promise.all([
    users.collection
      .find(windowOf(plan, ascending), users.options())
      .sort({ _id: plan.direction })
      .limit(plan.size + 1)
      .batchSize(plan.size + 1)
      .toArray(),
    exists(users, beyondCursor(plan, ascending)),
  ]);
  const { users: page, more } = pageOf(plan, docs);
  return {
    users: page,
    hasNextPage: plan.fromEnd ? beyond : more,
    hasPreviousPage: plan.fromEnd ? more : beyond,
    totalCount: () => users.collection.countDocuments(plan.base, users.options()),
  };
}

/** A page of the users one user invited: `Query.users`' arguments, for `User.invitees`. */
export interface InviteesRequest extends Omit<UserPageRequest, 'filter'> {
  inviterId: string;
}

/** The page of a plan over one inviter's invitee ids (ascending): which ids, and the flags. */
function windowOfIds(plan: PagePlan, ascending: boolean, ids: number[]) {
  const after = plan.after?.toNumber() ?? null;
  const before = plan.before?.toNumber() ?? null;
  const ordered = ascending ? ids : [...ids].reverse();
  const precedes = (a: number, b: number) => (ascending ? a < b : a > b);
  const inWindow = ordered.filter(
    (id) => (after === null || precedes(after, id)) && (before === null || precedes(id, before)),
  );
  const edge = plan.fromEnd ? before : after;
  const beyond =
    edge !== null &&
    ordered.some((id) => (plan.fromEnd ? !precedes(id, edge) : !precedes(edge, id)));
  const selected = plan.fromEnd ? inWindow.slice(-plan.size) : inWindow.slice(0, plan.size);
  const more = inWindow.length > plan.size;
  return {
    selected,
    hasNextPage: plan.fromEnd ? beyond : more,
    hasPreviousPage: plan.fromEnd ? more : beyond,
  };
}

/**
 * The pages of invitees of several inviters that share one set of page arguments, in `inviterIds`
 * order, in two commands whatever their number: the ids of all their invitees (`_id` and
 * `invitedById` only, where the cursors and sizes are applied), then the users of every page.
 * `totalCount` is known from the first, so it costs nothing.
 */
export async function pagesOfInvitees(
  users: UsersCollection,
  request: UserPageRequest,
  inviterIds: string[],
): Promise<UserPage[]> {
  const plan = planPage(request);
  const ascending = isAscending(request);
  const inviters = inviterIds.map((id) => parseUserId(id));
  const known = [...new Set(inviters.filter((id): id is number => id !== null))];
  const idsByInviter = new Map<number, number[]>(known.map((id) => [id, []]));
  if (known.length > 0) {
    const rows = await users.collection
      .find(
        { ...plan.base, invitedById: { $in: known.map((id) => Long.fromNumber(id)) } },
        users.options({ projection: { _id: 1, invitedById: 1 } }),
      )
      .sort({ invitedById: 1, _id: 1 })
      .toArray();
    for (const row of rows) {
      const id = numericId(row._id);
      if (Number.isSafeInteger(id)) idsByInviter.get(numericId(row.invitedById))?.push(id);
    }
  }
  const windows = new Map(
    known.map((inviter) => [
      inviter,
      windowOfIds(plan, ascending, idsByInviter.get(inviter) ?? []),
    ]),
  );
  const wanted = [...windows.values()].flatMap((window) => window.selected);
  const docs =
    wanted.length === 0
      ? []
      : await users.collection
          .find({ _id: { $in: wanted.map((id) => Long.fromNumber(id)) } }, users.options())
          .toArray();
  const usersById = new Map(
    docs.flatMap((doc) => {
      const user = toUser(doc);
      return user === null ? [] : [[user.id, user] as const];
    }),
  );
  return inviters.map((inviter) => {
    const window = inviter === null ? undefined : windows.get(inviter);
    const total = inviter === null ? 0 : (idsByInviter.get(inviter)?.length ?? 0);
    return {
      users: (window?.selected ?? []).flatMap((id) => usersById.get(String(id)) ?? []),
      hasNextPage: window?.hasNextPage ?? false,
      hasPreviousPage: window?.hasPreviousPage ?? false,
      totalCount: async () => total,
    };
  });
}
