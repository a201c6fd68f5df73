/**
 * Executing a subscription's events, shared between subscribers: graphql-js's `subscribe` (the
 * source stream of the subscription field's resolver, each event executed with the selection set),
 * except that an event is executed once per signature instead of once per subscriber.
 *
 * Contract:
 * - Subscribers of one shared change stream (src/database/change-feed.ts) receive the same event
 *   object; its result for one document, operation name, variables and caller (role and client:
 *   all a resolver may depend on) is computed once and handed to each of them (graphql-js
 *   executing the selection set once per subscriber was 15% of the service's busy time at 100
 *   subscribers, docs/benchmark.md). The caller of `signSubscription` says what the signature is.
 * - A result with errors is not shared (it may be one subscriber's abort): each executes its own.
 * - A subscription's `return()` reaches its source at once, even while a `next()` waits, so its
 *   change stream closes the moment the subscriber leaves.
 */
import {
  createSourceEventStream,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
} from 'graphql';

/** What makes two subscriptions' results for one event the same, per subscription's arguments. */
const signatures = new WeakMap<ExecutionArgs, string>();
/** Each event's results, by signature (an event lives as long as a feed still holds it). */
const executed = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/** Marks `args` as sharing each event's result with every subscription of the same `signature`. */
export function signSubscription(args: ExecutionArgs, signature: string): void {
  signatures.set(args, signature);
}

/** The result of `args` for `event`, executed once for every subscription of one signature. */
export function executeOnce(
  args: ExecutionArgs,
  signature: string,
  event: unknown,
): Promise<ExecutionResult> {
  const run = async () => execute({ ...args, rootValue: event });
  if (event === null || typeof event !== 'object') return run();
  let results = executed.get(event);
  if (results === undefined) {
    results = new Map();
    executed.set(event, results);
  }
  const shared = results.get(signature);
  if (shared !== undefined) {
    return shared.then((result) => (result.errors === undefined ? result : run()));
  }
  const result = run();
  results.set(signature, result);
  return result;
}

/** graphql-js's `subscribe`, executing each event once per signature (the header). */
export async function subscribeSharing(
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const signature = signatures.get(args);
  return mapEvents(source, (event) =>
    signature === undefined
      ? execute({ ...args, rootValue: event })
      : executeOnce(args, signature, event),
  );
}

/**
 * `source` with each event mapped; `return()` reaches the source at once, even while a `next()`
 * waits (an async generator's would wait for it: the change stream would stay open).
 */
export function mapEvents(
  source: AsyncIterable<unknown>,
  map: (event: unknown) => ExecutionResult | Promise<ExecutionResult>,
): AsyncIterableIterator<ExecutionResult> {
  const events = source[Symbol.asyncIterator]();
  return {
    async next() {
      const step = await events.next();
      return step.done === true
        ? { done: true, value: undefined }
        : { done: false, value: await map(step.value) };
    },
    async return() {
      await events.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
