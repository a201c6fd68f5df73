import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { UserDocument } from '../../users/index.js';
import type { SequenceState } from '../../sequences/index.js';
import type { GraphQLContext } from '../context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An instant in time, sent as an ISO-8601 string in UTC, e.g. `2026-11-30T12:00:00.000Z`. */
  DateTime: { input: Date; output: Date; }
  /**
   * A sequence value: stored in MongoDB as Int64 (NumberLong), sent as a JSON number. The service never
   * issues a value above 2^53 - 1 (9007199254740991), the largest integer a JSON client can hold exactly.
   */
  Long: { input: number; output: number; }
};

export type CreateSequenceInput = {
  /** Allocation beyond this fails with `SEQUENCE_EXHAUSTED`, and nothing is consumed. */
  max?: InputMaybe<Scalars['Long']['input']>;
  /** Starts with a letter; letters, digits, `_`, `.`, `-`; at most 64 characters. */
  name: Scalars['String']['input'];
  /** An independent counter under the same name (per tenant, per year); same syntax as `name`. */
  scope?: InputMaybe<Scalars['String']['input']>;
  /** The first value issued. Default 1. */
  start?: InputMaybe<Scalars['Long']['input']>;
  /** Added for each value; never 0. Interleave N servers with `start = k, step = N`. Default 1. */
  step?: InputMaybe<Scalars['Int']['input']>;
};

export type CreateUserInput = {
  /** Optional; unique among users when given. */
  email?: InputMaybe<Scalars['String']['input']>;
  /**
   * Optional, 1 to 128 characters. Retrying with the same key returns the first result and never
   * creates a second user; the same key with different input is refused.
   */
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  /** The id of an existing user. */
  invitedById?: InputMaybe<Scalars['ID']['input']>;
  /** 1 to 100 characters after trimming; no control characters. */
  name: Scalars['String']['input'];
};

export type CreateUserPayload = {
  __typename?: 'CreateUserPayload';
  /** Insert attempts this request made, including duplicate-key retries (0 for an idempotent replay). */
  attempts: Scalars['Int']['output'];
  /** True when `idempotencyKey` matched an earlier request and its user was returned. */
  replayed: Scalars['Boolean']['output'];
  strategy: IdStrategy;
  user: User;
};

export type CreateUsersPayload = {
  __typename?: 'CreateUsersPayload';
  /** How many results hold a user. */
  created: Scalars['Int']['output'];
  /** How many results hold an error. */
  failed: Scalars['Int']['output'];
  /** One per input, in input order. */
  results: Array<CreateUsersResult>;
  strategy: IdStrategy;
};

/** The outcome of one input of `createUsers`: exactly one of `user` and `error` is set. */
export type CreateUsersResult = {
  __typename?: 'CreateUsersResult';
  error?: Maybe<ItemError>;
  /** The position of the input this result belongs to. */
  index: Scalars['Int']['output'];
  user?: Maybe<User>;
};

/** How a user's `_id` is chosen. */
export type IdStrategy =
  /**
   * Hi/lo-style block: each service process reserves `ID_BLOCK_SIZE` ids (default 100) with one
   * `$inc` on the same `userid` counter and hands them out locally: about 1 command per user.
   * Ids are unique across processes but not issued in time order; a crash leaves gaps, never duplicates.
   */
  | 'BLOCK'
  /**
   * The tutorial's first method: a `counters` collection whose `{ _id: "userid", seq: NumberLong }`
   * document is advanced with one atomic `findAndModify` + `$inc` per user (upsert, retried on the
   * upsert race's duplicate key). Costs 2 database commands per user; every insert serialises on
   * the one counter document. Ids are issued in time order.
   */
  | 'COUNTER'
  /**
   * The tutorial's second method: read the largest `_id`, insert max + 1, retry when another writer
   * took that `_id` first. Needs no counter document; costs 2 commands per attempt, and attempts grow
   * with concurrency. Retries only on a duplicate `_id`, bounded, with jittered backoff.
   */
  | 'OPTIMISTIC_LOOP';

/** Why one item of a batch failed; `code` and `field` match the `extensions` of a top-level error. */
export type ItemError = {
  __typename?: 'ItemError';
  code: Scalars['String']['output'];
  field?: Maybe<Scalars['String']['output']>;
  message: Scalars['String']['output'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Consume `count` (1 to 10,000) values of a sequence in one atomic step: the generic `nextval`. */
  allocateSequence: SequenceRange;
  /**
   * Define a sequence. Idempotent: creating it again with the same options returns it; different
   * options are refused. Sequences used without being created (like `userid`) get the defaults.
   */
  createSequence: Sequence;
  /**
   * Create one user; its id comes from `strategy`. With `input.idempotencyKey`, a retry of the same
   * request returns the user the first one created instead of creating another.
   */
  createUser: CreateUserPayload;
  /**
   * Create up to 1,000 users in one request. COUNTER and BLOCK take all ids with one `$inc` and write
   * them with one unordered insert. Results come one per input, in input order; a bad item (say, a
   * duplicate email) fails alone.
   */
  createUsers: CreateUsersPayload;
  /**
   * Admin (needs `Authorization: Bearer <ADMIN_TOKEN>`): set the last issued value of a sequence.
   * Moving the `userid` counter backwards is refused while a stored user has an id at or above
   * `value + step`, since that would issue an id twice.
   */
  setSequence: Sequence;
};


export type MutationAllocateSequenceArgs = {
  count?: InputMaybe<Scalars['Int']['input']>;
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreateSequenceArgs = {
  input: CreateSequenceInput;
};


export type MutationCreateUserArgs = {
  input: CreateUserInput;
  strategy?: InputMaybe<IdStrategy>;
};


export type MutationCreateUsersArgs = {
  inputs: Array<CreateUserInput>;
  strategy?: InputMaybe<IdStrategy>;
};


export type MutationSetSequenceArgs = {
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
  value: Scalars['Long']['input'];
};

export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor?: Maybe<Scalars['ID']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
};

export type Query = {
  __typename?: 'Query';
  /**
   * The value the next allocation of this sequence will return, without consuming it.
   * For a sequence that does not exist yet, its default start (1).
   */
  nextSequence: Scalars['Long']['output'];
  /** Every sequence (counter document), ordered by name then scope; `scope` narrows to one scope. */
  sequences: Array<Sequence>;
  /** Per strategy, since this service process started: what creating users cost. */
  strategyStats: Array<StrategyStats>;
  /** The user with this id, or null when there is none. */
  user?: Maybe<User>;
  /** Users ordered by id, a page at a time. `first` is 1 to 100; `after` is the `endCursor` of the previous page. */
  users: UserConnection;
};


export type QueryNextSequenceArgs = {
  name: Scalars['String']['input'];
  scope?: InputMaybe<Scalars['String']['input']>;
};


export type QuerySequencesArgs = {
  scope?: InputMaybe<Scalars['String']['input']>;
};


export type QueryUserArgs = {
  id: Scalars['ID']['input'];
};


export type QueryUsersArgs = {
  after?: InputMaybe<Scalars['ID']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** A counter document and the definition stored on it. */
export type Sequence = {
  __typename?: 'Sequence';
  /**
   * For the `userid` counter only: `value` minus the largest `_id` stored in `users`. Negative means
   * the next COUNTER insert will find its id taken and repair the counter first.
   */
  drift?: Maybe<Scalars['Long']['output']>;
  /** The largest value this sequence may issue, if limited. */
  max?: Maybe<Scalars['Long']['output']>;
  name: Scalars['String']['output'];
  /** The value the next allocation will return. */
  next: Scalars['Long']['output'];
  /** Null for the unscoped sequence of this name. */
  scope?: Maybe<Scalars['String']['output']>;
  start: Scalars['Long']['output'];
  step: Scalars['Int']['output'];
  updatedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The last value issued; `start - step` when none has been issued yet. */
  value: Scalars['Long']['output'];
};

/** Values consumed by one `allocateSequence`: `first`, `first + step`, ..., `last`. */
export type SequenceRange = {
  __typename?: 'SequenceRange';
  count: Scalars['Int']['output'];
  first: Scalars['Long']['output'];
  last: Scalars['Long']['output'];
  name: Scalars['String']['output'];
  scope?: Maybe<Scalars['String']['output']>;
  step: Scalars['Int']['output'];
};

export type StrategyStats = {
  __typename?: 'StrategyStats';
  /** Database commands sent for this strategy's creations, divided by the users they created. */
  commandsPerUser?: Maybe<Scalars['Float']['output']>;
  counterRepairs: Scalars['Int']['output'];
  duplicateKeyRetries: Scalars['Int']['output'];
  insertAttempts: Scalars['Int']['output'];
  p50Ms?: Maybe<Scalars['Float']['output']>;
  p95Ms?: Maybe<Scalars['Float']['output']>;
  p99Ms?: Maybe<Scalars['Float']['output']>;
  strategy: IdStrategy;
  usersCreated: Scalars['Int']['output'];
};

export type User = {
  __typename?: 'User';
  createdAt: Scalars['DateTime']['output'];
  /** The strategy that chose this user's id. */
  createdWith: IdStrategy;
  email?: Maybe<Scalars['String']['output']>;
  /** The decimal string of the numeric `_id`. */
  id: Scalars['ID']['output'];
  /** The user whose id was given as `invitedById`, if any. */
  invitedBy?: Maybe<User>;
  name: Scalars['String']['output'];
};

export type UserConnection = {
  __typename?: 'UserConnection';
  edges: Array<UserEdge>;
  pageInfo: PageInfo;
};

export type UserEdge = {
  __typename?: 'UserEdge';
  cursor: Scalars['ID']['output'];
  node: User;
};

export type WithIndex<TObject> = TObject & Record<string, any>;
export type ResolversObject<TObject> = WithIndex<TObject>;

export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = ResolversObject<{
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  CreateSequenceInput: CreateSequenceInput;
  CreateUserInput: CreateUserInput;
  CreateUserPayload: ResolverTypeWrapper<Omit<CreateUserPayload, 'user'> & { user: ResolversTypes['User'] }>;
  CreateUsersPayload: ResolverTypeWrapper<Omit<CreateUsersPayload, 'results'> & { results: Array<ResolversTypes['CreateUsersResult']> }>;
  CreateUsersResult: ResolverTypeWrapper<Omit<CreateUsersResult, 'user'> & { user?: Maybe<ResolversTypes['User']> }>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  IdStrategy: IdStrategy;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  ItemError: ResolverTypeWrapper<ItemError>;
  Long: ResolverTypeWrapper<Scalars['Long']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Sequence: ResolverTypeWrapper<SequenceState>;
  SequenceRange: ResolverTypeWrapper<SequenceRange>;
  StrategyStats: ResolverTypeWrapper<StrategyStats>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  User: ResolverTypeWrapper<UserDocument>;
  UserConnection: ResolverTypeWrapper<Omit<UserConnection, 'edges'> & { edges: Array<ResolversTypes['UserEdge']> }>;
  UserEdge: ResolverTypeWrapper<Omit<UserEdge, 'node'> & { node: ResolversTypes['User'] }>;
}>;

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = ResolversObject<{
  Boolean: Scalars['Boolean']['output'];
  CreateSequenceInput: CreateSequenceInput;
  CreateUserInput: CreateUserInput;
  CreateUserPayload: Omit<CreateUserPayload, 'user'> & { user: ResolversParentTypes['User'] };
  CreateUsersPayload: Omit<CreateUsersPayload, 'results'> & { results: Array<ResolversParentTypes['CreateUsersResult']> };
  CreateUsersResult: Omit<CreateUsersResult, 'user'> & { user?: Maybe<ResolversParentTypes['User']> };
  DateTime: Scalars['DateTime']['output'];
  Float: Scalars['Float']['output'];
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  ItemError: ItemError;
  Long: Scalars['Long']['output'];
  Mutation: Record<PropertyKey, never>;
  PageInfo: PageInfo;
  Query: Record<PropertyKey, never>;
  Sequence: SequenceState;
  SequenceRange: SequenceRange;
  StrategyStats: StrategyStats;
  String: Scalars['String']['output'];
  User: UserDocument;
  UserConnection: Omit<UserConnection, 'edges'> & { edges: Array<ResolversParentTypes['UserEdge']> };
  UserEdge: Omit<UserEdge, 'node'> & { node: ResolversParentTypes['User'] };
}>;

export type CreateUserPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateUserPayload'] = ResolversParentTypes['CreateUserPayload']> = ResolversObject<{
  attempts?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  replayed?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  strategy?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
  user?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
}>;

export type CreateUsersPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateUsersPayload'] = ResolversParentTypes['CreateUsersPayload']> = ResolversObject<{
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  results?: Resolver<Array<ResolversTypes['CreateUsersResult']>, ParentType, ContextType>;
  strategy?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
}>;

export type CreateUsersResultResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateUsersResult'] = ResolversParentTypes['CreateUsersResult']> = ResolversObject<{
  error?: Resolver<Maybe<ResolversTypes['ItemError']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  user?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType>;
}>;

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type ItemErrorResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ItemError'] = ResolversParentTypes['ItemError']> = ResolversObject<{
  code?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  field?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export interface LongScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Long'], any> {
  name: 'Long';
}

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = ResolversObject<{
  allocateSequence?: Resolver<ResolversTypes['SequenceRange'], ParentType, ContextType, RequireFields<MutationAllocateSequenceArgs, 'count' | 'name'>>;
  createSequence?: Resolver<ResolversTypes['Sequence'], ParentType, ContextType, RequireFields<MutationCreateSequenceArgs, 'input'>>;
  createUser?: Resolver<ResolversTypes['CreateUserPayload'], ParentType, ContextType, RequireFields<MutationCreateUserArgs, 'input' | 'strategy'>>;
  createUsers?: Resolver<ResolversTypes['CreateUsersPayload'], ParentType, ContextType, RequireFields<MutationCreateUsersArgs, 'inputs' | 'strategy'>>;
  setSequence?: Resolver<ResolversTypes['Sequence'], ParentType, ContextType, RequireFields<MutationSetSequenceArgs, 'name' | 'value'>>;
}>;

export type PageInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = ResolversObject<{
  endCursor?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  nextSequence?: Resolver<ResolversTypes['Long'], ParentType, ContextType, RequireFields<QueryNextSequenceArgs, 'name'>>;
  sequences?: Resolver<Array<ResolversTypes['Sequence']>, ParentType, ContextType, Partial<QuerySequencesArgs>>;
  strategyStats?: Resolver<Array<ResolversTypes['StrategyStats']>, ParentType, ContextType>;
  user?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType, RequireFields<QueryUserArgs, 'id'>>;
  users?: Resolver<ResolversTypes['UserConnection'], ParentType, ContextType, RequireFields<QueryUsersArgs, 'first'>>;
}>;

export type SequenceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Sequence'] = ResolversParentTypes['Sequence']> = ResolversObject<{
  drift?: Resolver<Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
  max?: Resolver<Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  next?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  scope?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  start?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  step?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  updatedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  value?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
}>;

export type SequenceRangeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceRange'] = ResolversParentTypes['SequenceRange']> = ResolversObject<{
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  first?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  last?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  scope?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  step?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type StrategyStatsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StrategyStats'] = ResolversParentTypes['StrategyStats']> = ResolversObject<{
  commandsPerUser?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  counterRepairs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  duplicateKeyRetries?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  insertAttempts?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  p50Ms?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  p95Ms?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  p99Ms?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  strategy?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
  usersCreated?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type UserResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['User'] = ResolversParentTypes['User']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  createdWith?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
  email?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  invitedBy?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type UserConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UserConnection'] = ResolversParentTypes['UserConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['UserEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type UserEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UserEdge'] = ResolversParentTypes['UserEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
}>;

export type Resolvers<ContextType = GraphQLContext> = ResolversObject<{
  CreateUserPayload?: CreateUserPayloadResolvers<ContextType>;
  CreateUsersPayload?: CreateUsersPayloadResolvers<ContextType>;
  CreateUsersResult?: CreateUsersResultResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  ItemError?: ItemErrorResolvers<ContextType>;
  Long?: GraphQLScalarType;
  Mutation?: MutationResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  Sequence?: SequenceResolvers<ContextType>;
  SequenceRange?: SequenceRangeResolvers<ContextType>;
  StrategyStats?: StrategyStatsResolvers<ContextType>;
  User?: UserResolvers<ContextType>;
  UserConnection?: UserConnectionResolvers<ContextType>;
  UserEdge?: UserEdgeResolvers<ContextType>;
}>;

