/**
 * Load over HTTP: autocannon sending one GraphQL mutation in a closed loop from `connections`
 * connections, spread round-robin over the service instances (autocannon assigns connection i to
 * url i mod K), so one autocannon run gives exact latency percentiles across the whole fleet.
 *
 * Contract: a run lasts `durationS` seconds; each request creates `usersPerRequest` users
 * (`createUser`, or `createUsers` with a batch). A response counts as failed when it is not 2xx,
 * times out, or carries a GraphQL `errors` member (or, for a batch, a failed item); the users
 * actually created are read from the service's own counters by the caller, not inferred from
 * responses. Latency percentiles cover the responses received before the run ended.
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
  p50Ms: number;
  p99Ms: number;
}

const REQUEST_TIMEOUT_S = 10;

export function mutationBody({ strategy, usersPerRequest }: LoadShape): string {
  if (usersPerRequest === 1) {
    return JSON.stringify({
      query:
        'mutation Create($input: CreateUserInput!, $strategy: IdStrategy) ' +
        '{ createUser(input: $input, strategy: $strategy) { user { id } attempts } }',
      variables: { input: { name: 'bench user' }, strategy },
    });
  }
  return JSON.stringify({
    query:
      'mutation CreateMany($inputs: [CreateUserInput!]!, $strategy: IdStrategy) ' +
      '{ createUsers(inputs: $inputs, strategy: $strategy) { created failed } }',
    variables: {
      inputs: Array.from({ length: usersPerRequest }, (_, i) => ({ name: `bench user ${i}` })),
      strategy,
    },
  });
}

/** A 2xx body counts as success when it has no GraphQL errors and, for a batch, no failed item. */
function bodyCheck(shape: LoadShape): (body: string) => boolean {
  if (shape.usersPerRequest === 1) return (body) => !body.includes('"errors"');
  return (body) => !body.includes('"errors"') && body.includes('"failed":0');
}

export async function runHttpLoad(options: {
  urls: string[];
  shape: LoadShape;
  connections: number;
  durationS: number;
  /** Sent with every request, e.g. the client token. */
  headers: Record<string, string>;
}): Promise<LoadResult> {
  const succeeded = bodyCheck(options.shape);
  const result = await autocannon({
    // autocannon takes several urls (connection i goes to url i mod K); its types say one.
    url: options.urls.map((url) => `${url}/graphql`) as unknown as string,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: mutationBody(options.shape),
    connections: options.connections,
    duration: options.durationS,
    timeout: REQUEST_TIMEOUT_S,
    verifyBody: (body) => succeeded(String(body)),
  });
  return {
    failedRequests: result.errors + result.non2xx + result.mismatches,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}
