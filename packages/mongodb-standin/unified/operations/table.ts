/**
 * What an operation family contributes: handlers keyed `<entity kind>.<operation name>`
 * (`collection.insertOne`, `session.endSession`, `testRunner.failPoint`). A handler gets the
 * operation's arguments with `session` already resolved to its entity, the target entity, and
 * the test's context. Each family lives in its own module and is listed in ./index.ts.
 */
import { Document } from 'mongodb';
import { Entities } from '../entities';

export interface OperationContext {
  entities: Entities;
  /** the server's URI, for entities a test creates while it runs */
  uri: string;
  /**
   * Runs operations with their expectations checked, rethrowing any error they raised (expected
   * or not) once checked: withTransaction's callback, whose errors the driver must see.
   */
  runNested(operations: Document[]): Promise<void>;
  /**
   * Runs one operation with its expectations checked, as the test's own steps are (a thread's
   * operation); an error it expected is not rethrown.
   */
  runOne(operation: Document): Promise<void>;
  /** what driver 7.9 did on its own that the test does not expect (../driver-side.ts) */
  driverSide: string[];
}

export type Handler = (
  args: Document,
  target: unknown,
  context: OperationContext,
) => Promise<unknown>;

export type OperationTable = Record<string, Handler>;
