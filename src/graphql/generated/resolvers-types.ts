import type * as Types from './schema-types';
import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { User as UserModel } from '../../users/index';
import type { UserConnectionSource, SequenceConnectionSource } from '../connections';
import type { Caller } from '../../auth/index';
import type { RequestLimitsSource } from '../request-limits';
import type { SequenceState } from '../../sequences/index';
import type { GraphQLContext } from '../context';
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
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
) => Types.Maybe<TTypes> | Promise<Types.Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;




/** Mapping of interface types */
export type ResolversInterfaceTypes<_RefType extends Record<string, unknown>> = ResolversObject<{
  Node:
    | ( SequenceState )
    | ( UserModel )
  ;
}>;

/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = ResolversObject<{
  AllocateSequencePayload: ResolverTypeWrapper<Omit<Types.AllocateSequencePayload, 'query' | 'sequence'> & { query: ResolversTypes['Query'], sequence?: Types.Maybe<ResolversTypes['Sequence']> }>;
  Boolean: ResolverTypeWrapper<Types.Scalars['Boolean']['output']>;
  CallerBudget: ResolverTypeWrapper<Types.CallerBudget>;
  CreateSequenceInput: Types.CreateSequenceInput;
  CreateSequencePayload: ResolverTypeWrapper<Omit<Types.CreateSequencePayload, 'query' | 'sequence' | 'sequenceEdge'> & { query: ResolversTypes['Query'], sequence?: Types.Maybe<ResolversTypes['Sequence']>, sequenceEdge?: Types.Maybe<ResolversTypes['SequenceEdge']> }>;
  CreateUserInput: Types.CreateUserInput;
  CreateUserPayload: ResolverTypeWrapper<Omit<Types.CreateUserPayload, 'inviter' | 'query' | 'user' | 'userEdge'> & { inviter?: Types.Maybe<ResolversTypes['User']>, query: ResolversTypes['Query'], user?: Types.Maybe<ResolversTypes['User']>, userEdge?: Types.Maybe<ResolversTypes['UserEdge']> }>;
  CreateUsersPayload: ResolverTypeWrapper<Omit<Types.CreateUsersPayload, 'query' | 'results'> & { query: ResolversTypes['Query'], results: Array<ResolversTypes['CreateUsersResult']> }>;
  CreateUsersResult: ResolverTypeWrapper<Omit<Types.CreateUsersResult, 'user' | 'userEdge'> & { user?: Types.Maybe<ResolversTypes['User']>, userEdge?: Types.Maybe<ResolversTypes['UserEdge']> }>;
  DateTime: ResolverTypeWrapper<Types.Scalars['DateTime']['output']>;
  DeleteUserPayload: ResolverTypeWrapper<Omit<Types.DeleteUserPayload, 'inviter' | 'query' | 'user'> & { inviter?: Types.Maybe<ResolversTypes['User']>, query: ResolversTypes['Query'], user?: Types.Maybe<ResolversTypes['User']> }>;
  ErrorCode: Types.ErrorCode;
  Float: ResolverTypeWrapper<Types.Scalars['Float']['output']>;
  GapKind: Types.GapKind;
  ID: ResolverTypeWrapper<Types.Scalars['ID']['output']>;
  IdStrategy: Types.IdStrategy;
  ImportUserInput: Types.ImportUserInput;
  ImportUsersPayload: ResolverTypeWrapper<Omit<Types.ImportUsersPayload, 'query' | 'results'> & { query: ResolversTypes['Query'], results: Array<ResolversTypes['CreateUsersResult']> }>;
  Int: ResolverTypeWrapper<Types.Scalars['Int']['output']>;
  Long: ResolverTypeWrapper<Types.Scalars['Long']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  MutationError: ResolverTypeWrapper<Types.MutationError>;
  Node: ResolverTypeWrapper<ResolversInterfaceTypes<ResolversTypes>['Node']>;
  PageInfo: ResolverTypeWrapper<Types.PageInfo>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  RequestLimits: ResolverTypeWrapper<RequestLimitsSource>;
  ReservationPayload: ResolverTypeWrapper<Omit<Types.ReservationPayload, 'query' | 'sequence'> & { query: ResolversTypes['Query'], sequence?: Types.Maybe<ResolversTypes['Sequence']> }>;
  ReservationResult: ResolverTypeWrapper<Omit<Types.ReservationResult, 'sequence'> & { sequence?: Types.Maybe<ResolversTypes['Sequence']> }>;
  ReservationsPayload: ResolverTypeWrapper<Omit<Types.ReservationsPayload, 'query' | 'results'> & { query: ResolversTypes['Query'], results: Array<ResolversTypes['ReservationResult']> }>;
  Role: Types.Role;
  Sequence: ResolverTypeWrapper<SequenceState>;
  SequenceChange: ResolverTypeWrapper<Omit<Types.SequenceChange, 'sequence'> & { sequence: ResolversTypes['Sequence'] }>;
  SequenceConnection: ResolverTypeWrapper<SequenceConnectionSource>;
  SequenceEdge: ResolverTypeWrapper<Omit<Types.SequenceEdge, 'node'> & { node?: Types.Maybe<ResolversTypes['Sequence']> }>;
  SequenceGap: ResolverTypeWrapper<Types.SequenceGap>;
  SequenceGaps: ResolverTypeWrapper<Types.SequenceGaps>;
  SequencePastPeriod: ResolverTypeWrapper<Types.SequencePastPeriod>;
  SequencePastPeriods: ResolverTypeWrapper<Types.SequencePastPeriods>;
  SequencePeriod: Types.SequencePeriod;
  SequenceRange: ResolverTypeWrapper<Types.SequenceRange>;
  SequenceReservation: ResolverTypeWrapper<Types.SequenceReservation>;
  SetSequencePayload: ResolverTypeWrapper<Omit<Types.SetSequencePayload, 'query' | 'sequence'> & { query: ResolversTypes['Query'], sequence?: Types.Maybe<ResolversTypes['Sequence']> }>;
  StrategyStats: ResolverTypeWrapper<Types.StrategyStats>;
  String: ResolverTypeWrapper<Types.Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  UpdateUserInput: Types.UpdateUserInput;
  UpdateUserPayload: ResolverTypeWrapper<Omit<Types.UpdateUserPayload, 'query' | 'user'> & { query: ResolversTypes['Query'], user?: Types.Maybe<ResolversTypes['User']> }>;
  User: ResolverTypeWrapper<UserModel>;
  UserConnection: ResolverTypeWrapper<UserConnectionSource>;
  UserCreated: ResolverTypeWrapper<Omit<Types.UserCreated, 'user'> & { user: ResolversTypes['User'] }>;
  UserEdge: ResolverTypeWrapper<Omit<Types.UserEdge, 'node'> & { node: ResolversTypes['User'] }>;
  UserFilter: Types.UserFilter;
  UserOrder: Types.UserOrder;
  Viewer: ResolverTypeWrapper<Caller>;
}>;

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = ResolversObject<{
  AllocateSequencePayload: Omit<Types.AllocateSequencePayload, 'query' | 'sequence'> & { query: ResolversParentTypes['Query'], sequence?: Types.Maybe<ResolversParentTypes['Sequence']> };
  Boolean: Types.Scalars['Boolean']['output'];
  CallerBudget: Types.CallerBudget;
  CreateSequenceInput: Types.CreateSequenceInput;
  CreateSequencePayload: Omit<Types.CreateSequencePayload, 'query' | 'sequence' | 'sequenceEdge'> & { query: ResolversParentTypes['Query'], sequence?: Types.Maybe<ResolversParentTypes['Sequence']>, sequenceEdge?: Types.Maybe<ResolversParentTypes['SequenceEdge']> };
  CreateUserInput: Types.CreateUserInput;
  CreateUserPayload: Omit<Types.CreateUserPayload, 'inviter' | 'query' | 'user' | 'userEdge'> & { inviter?: Types.Maybe<ResolversParentTypes['User']>, query: ResolversParentTypes['Query'], user?: Types.Maybe<ResolversParentTypes['User']>, userEdge?: Types.Maybe<ResolversParentTypes['UserEdge']> };
  CreateUsersPayload: Omit<Types.CreateUsersPayload, 'query' | 'results'> & { query: ResolversParentTypes['Query'], results: Array<ResolversParentTypes['CreateUsersResult']> };
  CreateUsersResult: Omit<Types.CreateUsersResult, 'user' | 'userEdge'> & { user?: Types.Maybe<ResolversParentTypes['User']>, userEdge?: Types.Maybe<ResolversParentTypes['UserEdge']> };
  DateTime: Types.Scalars['DateTime']['output'];
  DeleteUserPayload: Omit<Types.DeleteUserPayload, 'inviter' | 'query' | 'user'> & { inviter?: Types.Maybe<ResolversParentTypes['User']>, query: ResolversParentTypes['Query'], user?: Types.Maybe<ResolversParentTypes['User']> };
  Float: Types.Scalars['Float']['output'];
  ID: Types.Scalars['ID']['output'];
  ImportUserInput: Types.ImportUserInput;
  ImportUsersPayload: Omit<Types.ImportUsersPayload, 'query' | 'results'> & { query: ResolversParentTypes['Query'], results: Array<ResolversParentTypes['CreateUsersResult']> };
  Int: Types.Scalars['Int']['output'];
  Long: Types.Scalars['Long']['output'];
  Mutation: Record<PropertyKey, never>;
  MutationError: Types.MutationError;
  Node: ResolversInterfaceTypes<ResolversParentTypes>['Node'];
  PageInfo: Types.PageInfo;
  Query: Record<PropertyKey, never>;
  RequestLimits: RequestLimitsSource;
  ReservationPayload: Omit<Types.ReservationPayload, 'query' | 'sequence'> & { query: ResolversParentTypes['Query'], sequence?: Types.Maybe<ResolversParentTypes['Sequence']> };
  ReservationResult: Omit<Types.ReservationResult, 'sequence'> & { sequence?: Types.Maybe<ResolversParentTypes['Sequence']> };
  ReservationsPayload: Omit<Types.ReservationsPayload, 'query' | 'results'> & { query: ResolversParentTypes['Query'], results: Array<ResolversParentTypes['ReservationResult']> };
  Sequence: SequenceState;
  SequenceChange: Omit<Types.SequenceChange, 'sequence'> & { sequence: ResolversParentTypes['Sequence'] };
  SequenceConnection: SequenceConnectionSource;
  SequenceEdge: Omit<Types.SequenceEdge, 'node'> & { node?: Types.Maybe<ResolversParentTypes['Sequence']> };
  SequenceGap: Types.SequenceGap;
  SequenceGaps: Types.SequenceGaps;
  SequencePastPeriod: Types.SequencePastPeriod;
  SequencePastPeriods: Types.SequencePastPeriods;
  SequenceRange: Types.SequenceRange;
  SequenceReservation: Types.SequenceReservation;
  SetSequencePayload: Omit<Types.SetSequencePayload, 'query' | 'sequence'> & { query: ResolversParentTypes['Query'], sequence?: Types.Maybe<ResolversParentTypes['Sequence']> };
  StrategyStats: Types.StrategyStats;
  String: Types.Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  UpdateUserInput: Types.UpdateUserInput;
  UpdateUserPayload: Omit<Types.UpdateUserPayload, 'query' | 'user'> & { query: ResolversParentTypes['Query'], user?: Types.Maybe<ResolversParentTypes['User']> };
  User: UserModel;
  UserConnection: UserConnectionSource;
  UserCreated: Omit<Types.UserCreated, 'user'> & { user: ResolversParentTypes['User'] };
  UserEdge: Omit<Types.UserEdge, 'node'> & { node: ResolversParentTypes['User'] };
  UserFilter: Types.UserFilter;
  Viewer: Caller;
}>;

export type AllocateSequencePayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AllocateSequencePayload'] = ResolversParentTypes['AllocateSequencePayload']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  range?: Resolver<Types.Maybe<ResolversTypes['SequenceRange']>, ParentType, ContextType>;
  reservation?: Resolver<Types.Maybe<ResolversTypes['SequenceReservation']>, ParentType, ContextType>;
  reservations?: Resolver<Array<ResolversTypes['SequenceReservation']>, ParentType, ContextType>;
  sequence?: Resolver<Types.Maybe<ResolversTypes['Sequence']>, ParentType, ContextType>;
}>;

export type CallerBudgetResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CallerBudget'] = ResolversParentTypes['CallerBudget']> = ResolversObject<{
  limit?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  remaining?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
  resetsInSeconds?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  unit?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  windowSeconds?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
}>;

export type CreateSequencePayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateSequencePayload'] = ResolversParentTypes['CreateSequencePayload']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  sequence?: Resolver<Types.Maybe<ResolversTypes['Sequence']>, ParentType, ContextType>;
  sequenceEdge?: Resolver<Types.Maybe<ResolversTypes['SequenceEdge']>, ParentType, ContextType>;
}>;

export type CreateUserPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateUserPayload'] = ResolversParentTypes['CreateUserPayload']> = ResolversObject<{
  attempts?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  inviter?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  replayed?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  strategy?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
  user?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  userEdge?: Resolver<Types.Maybe<ResolversTypes['UserEdge']>, ParentType, ContextType>;
}>;

export type CreateUsersPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateUsersPayload'] = ResolversParentTypes['CreateUsersPayload']> = ResolversObject<{
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  replayed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  results?: Resolver<Array<ResolversTypes['CreateUsersResult']>, ParentType, ContextType>;
  strategy?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
}>;

export type CreateUsersResultResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateUsersResult'] = ResolversParentTypes['CreateUsersResult']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  replayed?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  user?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  userEdge?: Resolver<Types.Maybe<ResolversTypes['UserEdge']>, ParentType, ContextType>;
}>;

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type DeleteUserPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['DeleteUserPayload'] = ResolversParentTypes['DeleteUserPayload']> = ResolversObject<{
  deletedUserId?: Resolver<Types.Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  inviter?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  user?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType>;
}>;

export type ImportUsersPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ImportUsersPayload'] = ResolversParentTypes['ImportUsersPayload']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  imported?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  replayed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  results?: Resolver<Array<ResolversTypes['CreateUsersResult']>, ParentType, ContextType>;
}>;

export interface LongScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Long'], any> {
  name: 'Long';
}

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = ResolversObject<{
  advanceSequence?: Resolver<Types.Maybe<ResolversTypes['SetSequencePayload']>, ParentType, ContextType, RequireFields<Types.MutationAdvanceSequenceArgs, 'name' | 'to'>>;
  allocateSequence?: Resolver<Types.Maybe<ResolversTypes['AllocateSequencePayload']>, ParentType, ContextType, RequireFields<Types.MutationAllocateSequenceArgs, 'count' | 'name'>>;
  confirmReservation?: Resolver<Types.Maybe<ResolversTypes['ReservationPayload']>, ParentType, ContextType, RequireFields<Types.MutationConfirmReservationArgs, 'id'>>;
  confirmReservations?: Resolver<Types.Maybe<ResolversTypes['ReservationsPayload']>, ParentType, ContextType, RequireFields<Types.MutationConfirmReservationsArgs, 'ids'>>;
  createSequence?: Resolver<Types.Maybe<ResolversTypes['CreateSequencePayload']>, ParentType, ContextType, RequireFields<Types.MutationCreateSequenceArgs, 'input'>>;
  createUser?: Resolver<Types.Maybe<ResolversTypes['CreateUserPayload']>, ParentType, ContextType, RequireFields<Types.MutationCreateUserArgs, 'input' | 'strategy'>>;
  createUsers?: Resolver<Types.Maybe<ResolversTypes['CreateUsersPayload']>, ParentType, ContextType, RequireFields<Types.MutationCreateUsersArgs, 'inputs' | 'strategy'>>;
  deleteUser?: Resolver<Types.Maybe<ResolversTypes['DeleteUserPayload']>, ParentType, ContextType, RequireFields<Types.MutationDeleteUserArgs, 'id'>>;
  importUsers?: Resolver<Types.Maybe<ResolversTypes['ImportUsersPayload']>, ParentType, ContextType, RequireFields<Types.MutationImportUsersArgs, 'inputs'>>;
  releaseReservation?: Resolver<Types.Maybe<ResolversTypes['ReservationPayload']>, ParentType, ContextType, RequireFields<Types.MutationReleaseReservationArgs, 'id'>>;
  releaseReservations?: Resolver<Types.Maybe<ResolversTypes['ReservationsPayload']>, ParentType, ContextType, RequireFields<Types.MutationReleaseReservationsArgs, 'ids'>>;
  setSequence?: Resolver<Types.Maybe<ResolversTypes['SetSequencePayload']>, ParentType, ContextType, RequireFields<Types.MutationSetSequenceArgs, 'name' | 'value'>>;
  setSequenceFormat?: Resolver<Types.Maybe<ResolversTypes['SetSequencePayload']>, ParentType, ContextType, RequireFields<Types.MutationSetSequenceFormatArgs, 'format' | 'name'>>;
  updateUser?: Resolver<Types.Maybe<ResolversTypes['UpdateUserPayload']>, ParentType, ContextType, RequireFields<Types.MutationUpdateUserArgs, 'id' | 'input'>>;
}>;

export type MutationErrorResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MutationError'] = ResolversParentTypes['MutationError']> = ResolversObject<{
  code?: Resolver<ResolversTypes['ErrorCode'], ParentType, ContextType>;
  field?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  retryable?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type NodeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Node'] = ResolversParentTypes['Node']> = ResolversObject<{
  __resolveType: TypeResolveFn<'Sequence' | 'User', ParentType, ContextType>;
}>;

export type PageInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = ResolversObject<{
  endCursor?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  nextSequence?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType, RequireFields<Types.QueryNextSequenceArgs, 'name'>>;
  node?: Resolver<Types.Maybe<ResolversTypes['Node']>, ParentType, ContextType, RequireFields<Types.QueryNodeArgs, 'id'>>;
  nodes?: Resolver<Types.Maybe<Array<Types.Maybe<ResolversTypes['Node']>>>, ParentType, ContextType, RequireFields<Types.QueryNodesArgs, 'ids'>>;
  sequence?: Resolver<Types.Maybe<ResolversTypes['Sequence']>, ParentType, ContextType, RequireFields<Types.QuerySequenceArgs, 'name'>>;
  sequences?: Resolver<Types.Maybe<ResolversTypes['SequenceConnection']>, ParentType, ContextType, Partial<Types.QuerySequencesArgs>>;
  strategyStats?: Resolver<Types.Maybe<Array<ResolversTypes['StrategyStats']>>, ParentType, ContextType>;
  user?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType, RequireFields<Types.QueryUserArgs, 'id'>>;
  userByEmail?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType, RequireFields<Types.QueryUserByEmailArgs, 'email'>>;
  users?: Resolver<Types.Maybe<ResolversTypes['UserConnection']>, ParentType, ContextType, RequireFields<Types.QueryUsersArgs, 'order'>>;
  viewer?: Resolver<Types.Maybe<ResolversTypes['Viewer']>, ParentType, ContextType>;
}>;

export type RequestLimitsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RequestLimits'] = ResolversParentTypes['RequestLimits']> = ResolversObject<{
  aliases?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  batchedOperations?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  budgets?: Resolver<Array<ResolversTypes['CallerBudget']>, ParentType, ContextType>;
  documentCost?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  documentDepth?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  listedItems?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  pageSize?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  scannedValues?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  sequenceAllocations?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  usersCreated?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  valuesPerAllocation?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type ReservationPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReservationPayload'] = ResolversParentTypes['ReservationPayload']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  sequence?: Resolver<Types.Maybe<ResolversTypes['Sequence']>, ParentType, ContextType>;
  value?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
}>;

export type ReservationResultResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReservationResult'] = ResolversParentTypes['ReservationResult']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  sequence?: Resolver<Types.Maybe<ResolversTypes['Sequence']>, ParentType, ContextType>;
  value?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
}>;

export type ReservationsPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReservationsPayload'] = ResolversParentTypes['ReservationsPayload']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  results?: Resolver<Array<ResolversTypes['ReservationResult']>, ParentType, ContextType>;
  settled?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type SequenceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Sequence'] = ResolversParentTypes['Sequence']> = ResolversObject<{
  currentPeriod?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  drift?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
  format?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  formattedNext?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  formattedValue?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  gapless?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  gaps?: Resolver<Types.Maybe<ResolversTypes['SequenceGaps']>, ParentType, ContextType, RequireFields<Types.SequenceGapsArgs, 'first'>>;
  holdSeconds?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  max?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  next?: Resolver<Types.Maybe<ResolversTypes['Long']>, ParentType, ContextType>;
  owner?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  pastPeriods?: Resolver<Types.Maybe<ResolversTypes['SequencePastPeriods']>, ParentType, ContextType, RequireFields<Types.SequencePastPeriodsArgs, 'first'>>;
  period?: Resolver<Types.Maybe<ResolversTypes['SequencePeriod']>, ParentType, ContextType>;
  scope?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  start?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  step?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  timeZone?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  updatedAt?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  value?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type SequenceChangeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceChange'] = ResolversParentTypes['SequenceChange']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  sequence?: Resolver<ResolversTypes['Sequence'], ParentType, ContextType>;
}>;

export type SequenceConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceConnection'] = ResolversParentTypes['SequenceConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['SequenceEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type SequenceEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceEdge'] = ResolversParentTypes['SequenceEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  node?: Resolver<Types.Maybe<ResolversTypes['Sequence']>, ParentType, ContextType>;
}>;

export type SequenceGapResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceGap'] = ResolversParentTypes['SequenceGap']> = ResolversObject<{
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  first?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['GapKind'], ParentType, ContextType>;
  last?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
}>;

export type SequenceGapsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceGaps'] = ResolversParentTypes['SequenceGaps']> = ResolversObject<{
  complete?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  runs?: Resolver<Array<ResolversTypes['SequenceGap']>, ParentType, ContextType>;
  scannedThrough?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
}>;

export type SequencePastPeriodResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequencePastPeriod'] = ResolversParentTypes['SequencePastPeriod']> = ResolversObject<{
  formattedValue?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  period?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
}>;

export type SequencePastPeriodsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequencePastPeriods'] = ResolversParentTypes['SequencePastPeriods']> = ResolversObject<{
  hasMore?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  periods?: Resolver<Array<ResolversTypes['SequencePastPeriod']>, ParentType, ContextType>;
}>;

export type SequenceRangeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceRange'] = ResolversParentTypes['SequenceRange']> = ResolversObject<{
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  first?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  formatted?: Resolver<Types.Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  last?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
  period?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  step?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type SequenceReservationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SequenceReservation'] = ResolversParentTypes['SequenceReservation']> = ResolversObject<{
  expiresAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  formatted?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  period?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  value?: Resolver<ResolversTypes['Long'], ParentType, ContextType>;
}>;

export type SetSequencePayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SetSequencePayload'] = ResolversParentTypes['SetSequencePayload']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  sequence?: Resolver<Types.Maybe<ResolversTypes['Sequence']>, ParentType, ContextType>;
}>;

export type StrategyStatsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StrategyStats'] = ResolversParentTypes['StrategyStats']> = ResolversObject<{
  commandsPerUser?: Resolver<Types.Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  counterRepairs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  duplicateKeyRetries?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  insertAttempts?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  p50Ms?: Resolver<Types.Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  p95Ms?: Resolver<Types.Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  p99Ms?: Resolver<Types.Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  strategy?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
  transactionRetries?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  usersCreated?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  writeConflicts?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = ResolversObject<{
  sequenceChanged?: SubscriptionResolver<Types.Maybe<ResolversTypes['SequenceChange']>, "sequenceChanged", ParentType, ContextType, RequireFields<Types.SubscriptionSequenceChangedArgs, 'name'>>;
  userCreated?: SubscriptionResolver<Types.Maybe<ResolversTypes['UserCreated']>, "userCreated", ParentType, ContextType, Partial<Types.SubscriptionUserCreatedArgs>>;
}>;

export type UpdateUserPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UpdateUserPayload'] = ResolversParentTypes['UpdateUserPayload']> = ResolversObject<{
  error?: Resolver<Types.Maybe<ResolversTypes['MutationError']>, ParentType, ContextType>;
  query?: Resolver<ResolversTypes['Query'], ParentType, ContextType>;
  user?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType>;
}>;

export type UserResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['User'] = ResolversParentTypes['User']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  createdWith?: Resolver<ResolversTypes['IdStrategy'], ParentType, ContextType>;
  email?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  importedAt?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  invitedBy?: Resolver<Types.Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  invitedById?: Resolver<Types.Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  invitees?: Resolver<Types.Maybe<ResolversTypes['UserConnection']>, ParentType, ContextType, RequireFields<Types.UserInviteesArgs, 'order'>>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  number?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type UserConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UserConnection'] = ResolversParentTypes['UserConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['UserEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type UserCreatedResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UserCreated'] = ResolversParentTypes['UserCreated']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  user?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
}>;

export type UserEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UserEdge'] = ResolversParentTypes['UserEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
}>;

export type ViewerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Viewer'] = ResolversParentTypes['Viewer']> = ResolversObject<{
  client?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  limits?: Resolver<ResolversTypes['RequestLimits'], ParentType, ContextType>;
  role?: Resolver<ResolversTypes['Role'], ParentType, ContextType>;
}>;

export type Resolvers<ContextType = GraphQLContext> = ResolversObject<{
  AllocateSequencePayload?: AllocateSequencePayloadResolvers<ContextType>;
  CallerBudget?: CallerBudgetResolvers<ContextType>;
  CreateSequencePayload?: CreateSequencePayloadResolvers<ContextType>;
  CreateUserPayload?: CreateUserPayloadResolvers<ContextType>;
  CreateUsersPayload?: CreateUsersPayloadResolvers<ContextType>;
  CreateUsersResult?: CreateUsersResultResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  DeleteUserPayload?: DeleteUserPayloadResolvers<ContextType>;
  ImportUsersPayload?: ImportUsersPayloadResolvers<ContextType>;
  Long?: GraphQLScalarType;
  Mutation?: MutationResolvers<ContextType>;
  MutationError?: MutationErrorResolvers<ContextType>;
  Node?: NodeResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  RequestLimits?: RequestLimitsResolvers<ContextType>;
  ReservationPayload?: ReservationPayloadResolvers<ContextType>;
  ReservationResult?: ReservationResultResolvers<ContextType>;
  ReservationsPayload?: ReservationsPayloadResolvers<ContextType>;
  Sequence?: SequenceResolvers<ContextType>;
  SequenceChange?: SequenceChangeResolvers<ContextType>;
  SequenceConnection?: SequenceConnectionResolvers<ContextType>;
  SequenceEdge?: SequenceEdgeResolvers<ContextType>;
  SequenceGap?: SequenceGapResolvers<ContextType>;
  SequenceGaps?: SequenceGapsResolvers<ContextType>;
  SequencePastPeriod?: SequencePastPeriodResolvers<ContextType>;
  SequencePastPeriods?: SequencePastPeriodsResolvers<ContextType>;
  SequenceRange?: SequenceRangeResolvers<ContextType>;
  SequenceReservation?: SequenceReservationResolvers<ContextType>;
  SetSequencePayload?: SetSequencePayloadResolvers<ContextType>;
  StrategyStats?: StrategyStatsResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  UpdateUserPayload?: UpdateUserPayloadResolvers<ContextType>;
  User?: UserResolvers<ContextType>;
  UserConnection?: UserConnectionResolvers<ContextType>;
  UserCreated?: UserCreatedResolvers<ContextType>;
  UserEdge?: UserEdgeResolvers<ContextType>;
  Viewer?: ViewerResolvers<ContextType>;
}>;

