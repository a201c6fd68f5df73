/**
 * Load over HTTP: autocannon sending one GraphQL mutation in a closed loop from `connections`
 * connections, spread round-robin over the service instances (autocannon assigns connection i to
 * url i mod K), so one autocannon run gives exact latency percentiles across the whole fleet.
 *
 * Contract: a run lasts `durationS` seconds; each request creates `usersPerRequest` users
 * (`createUser`, or `createUsers` with a batch). A response counts as failed when it is not 2xx,
 * times out, or carries a GraphQL `errors` member; the users actually created are read from the
 * service's own stats by the caller, not inferred from responses.
 */
import autocannon from 'autocannon';

export interface LoadShape {
  strategy: 'COUNTER' | 'OPTIMISTIC_LOOP' | 'BLOCK';
  /** 1: `createUser`; more: one `createUsers` with this many inputs. */
  usersPerRequest: number;
}

export interface LoadResult {
  durationS: number;
  requests: number;
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

export async function runHttpLoad(options: {
  urls: string[];
  shape: LoadShape;
  connections: number;
  durationS: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    // autocannon takes several urls (connection i goes to url i mod K); its types say one.
    url: options.urls.map((url) => `${url}/graphql`) as unknown as string,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: mutationBody(options.shape),
    connections: options.connections,
    duration: options.durationS,
    timeout: REQUEST_TIMEOUT_S,
    verifyBody: (body) => !String(body).includes('"errors"'),
  });
  return {
    durationS: result.duration,
    requests: result.requests.total,
    failedRequests: result.errors + result.non2xx + result.mismatches,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}
