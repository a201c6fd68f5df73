/**
 * Load over HTTP: autocannon sending one GraphQL mutation in a closed loop from `connections`
 * connections, spread round-robin over the service instances (autocannon assigns connection i to
 * url i mod K), so one autocannon run gives exact latency percentiles across the whole fleet.
 *
 * Contract: a run lasts `durationS` seconds; each request creates `usersPerRequest` users
 * (`createUser`, or `createUsers` with a batch). Every answer is one of three: a success, a
 * retryable refusal (an error the service marks `retryable: true`: SERVICE_UNAVAILABLE at the
 * request's deadline, ID_CONTENTION, RATE_LIMITED; a client sends it again), or a failure (any
 * other error, a non-2xx answer without one, a failed batch item, no answer at all: transport
 * errors and timeouts). The client waits longer than the service's own deadline
 * (REQUEST_TIMEOUT_MS, 15 s by default), so a slow request is answered by the service, not
 * dropped here. The users actually created are read from the service's own counters by the
 * caller, not inferred from responses. Latency percentiles cover every answer received before
 * the run ended, refusals included.
 */
import autocannon from 'autocannon';
import type { IdStrategy } from '../src/strategies';

export interface LoadShape {
  strategy: IdStrategy;
  /** 1: `createUser`; more: one `createUsers` with this many inputs. */
  usersPerRequest: number;
}

export interface LoadResult {
  failedRequests: number;
  retryableRefusals: number;
  p50Ms: number;
  p99Ms: number;
}

/** Longer than the service's default REQUEST_TIMEOUT_MS (15 s), which then answers first. */
const REQUEST_TIMEOUT_S = 20;

export function mutationBody({ strategy, usersPerRequest }: LoadShape): string {
  if (usersPerRequest === 1) {
    return JSON.stringify({
      query:
        'mutation Create($input: CreateUserInput!, $strategy: IdStrategy) ' +
        '{ createUser(input: $input, strategy: $strategy) { user { id } attempts error { code retryable } } }',
      variables: { input: { name: 'bench user' }, strategy },
    });
  }
  return JSON.stringify({
    query:
      'mutation CreateMany($inputs: [CreateUserInput!]!, $strategy: IdStrategy) ' +
      '{ createUsers(inputs: $inputs, strategy: $strategy) { created failed error { code retryable } } }',
    variables: {
      inputs: Array.from({ length: usersPerRequest }, (_, i) => ({ name: `bench user ${i}` })),
      strategy,
    },
  });
}

type Answer = 'success' | 'retryable' | 'failed';

/**
 * What an answer's body says: a success has no GraphQL `errors` and no payload `error` (a batch:
 * no failed item); an error the service marks retryable is a refusal; anything else failed.
 */
function answerOf(shape: LoadShape): (body: string) => Answer {
  const done = shape.usersPerRequest === 1 ? '"error":null' : '"failed":0';
  return (body) => {
    if (!body.includes('"errors"') && body.includes(done)) return 'success';
    return body.includes('"retryable":true') ? 'retryable' : 'failed';
  };
}

export async function runHttpLoad(options: {
  urls: string[];
  shape: LoadShape;
  connections: number;
  durationS: number;
  /** Sent with every request, e.g. the client token. */
  headers: Record<string, string>;
}): Promise<LoadResult> {
  const answer = answerOf(options.shape);
  const answers: Record<Answer, number> = { success: 0, retryable: 0, failed: 0 };
  const result = await autocannon({
    // autocannon takes several urls (connection i goes to url i mod K); its types say one.
    url: options.urls.map((url) => `${url}/graphql`) as unknown as string,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: mutationBody(options.shape),
    connections: options.connections,
    duration: options.durationS,
    timeout: REQUEST_TIMEOUT_S,
    // Called for every answer, 2xx or not.
    verifyBody: (body) => {
      const said = answer(String(body));
      answers[said] += 1;
      return said === 'success';
    },
  });
  return {
    // `errors`: no answer (transport errors and timeouts).
    failedRequests: result.errors + answers.failed,
    retryableRefusals: answers.retryable,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}
