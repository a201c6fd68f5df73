/**
 * src/graphql/subscription-execution.ts alone, on a small schema of its own: an event is executed
 * once per signature however many subscribers share it, a result with errors is not shared, and
 * leaving a subscription reaches its source at once, even while a `next()` waits.
 */
import { buildSchema, type ExecutionArgs, parse } from 'graphql';
import {
  executeOnce,
  mapEvents,
  signSubscription,
  subscribeSharing,
} from '../../src/graphql/subscription-execution';

const schema = buildSchema(`
  type Query { ok: Boolean }
  type Subscription { ticked: Tick }
  type Tick { n: Int, failing: Int }
`);

/** A source whose events are pushed by the test, and which records its `return()`. */
function pushedSource() {
  const waiting: Array<(step: IteratorResult<unknown>) => void> = [];
  const source = {
    returned: false,
    push(value: unknown) {
      waiting.shift()?.({ done: false, value });
    },
    [Symbol.asyncIterator]() {
      return {
        next: () => new Promise<IteratorResult<unknown>>((resolve) => waiting.push(resolve)),
        return: async () => {
          source.returned = true;
          waiting.shift()?.({ done: true, value: undefined });
          return { done: true as const, value: undefined };
        },
      };
    },
  };
  return source;
}

function argsCounting(runs: { n: number }, failing = false): ExecutionArgs {
  return {
    schema,
    document: parse(`subscription { ticked { n ${failing ? 'failing' : ''} } }`),
    rootValue: undefined,
    fieldResolver: (source, _args, _context, info) => {
      if (info.fieldName === 'n') runs.n += 1;
      if (info.fieldName === 'failing') throw new Error('this subscriber only');
      return (source as Record<string, unknown>)[info.fieldName];
    },
  };
}

test('one event, one signature: executed once for every subscriber', async () => {
  const runs = { n: 0 };
  const event = { ticked: { n: 7 } };
  const results = await Promise.all(
    [1, 2, 3].map(() => executeOnce(argsCounting(runs), 'same', event)),
  );
  expect(results.map((result) => result.data)).toEqual(Array(3).fill({ ticked: { n: 7 } }));
  expect(runs.n).toBe(1);
  await executeOnce(argsCounting(runs), 'another', event);
  expect(runs.n).toBe(2);
});

test('a result with errors is not shared: each subscriber executes its own', async () => {
  const runs = { n: 0 };
  const event = { ticked: { n: 1 } };
  const results = await Promise.all(
    [1, 2].map(() => executeOnce(argsCounting(runs, true), 'failing', event)),
  );
  expect(results.every((result) => result.errors?.length === 1)).toBe(true);
  expect(runs.n).toBe(2);
});

test('subscribeSharing executes each event of the source once per signature', async () => {
  const runs = { n: 0 };
  const source = pushedSource();
  const withSource = (args: ExecutionArgs): ExecutionArgs => ({
    ...args,
    subscribeFieldResolver: () => source,
  });
  const subscribers = await Promise.all(
    [1, 2].map(async () => {
      const args = withSource(argsCounting(runs));
      signSubscription(args, 'shared');
      return (await subscribeSharing(args)) as AsyncIterableIterator<unknown>;
    }),
  );
  // Both read the same event object (as subscribers of one change stream do).
  const reads = subscribers.map((subscriber) => subscriber.next());
  const event = { ticked: { n: 3 } };
  source.push(event);
  source.push(event);
  expect((await Promise.all(reads)).map((step) => step.value)).toEqual(
    Array(2).fill({ data: { ticked: { n: 3 } } }),
  );
  expect(runs.n).toBe(1);
});

test('return() reaches the source while a next() still waits', async () => {
  const source = pushedSource();
  const mapped = mapEvents(source, (event) => ({ data: event as Record<string, unknown> }));
  const pending = mapped.next();
  await mapped.return?.();
  expect(source.returned).toBe(true);
  expect(await pending).toEqual({ done: true, value: undefined });
});
