/**
 * Issue 18's hostile request bodies, each about 1 MB of JSON (under BODY_LIMIT: the point is what
 * the service does with what it accepts): `$input` with 70,000 unknown keys, input objects nested
 * 1 MB deep, a 100,000-item list, a 1 MB string. One home for test/http/bounded-work.test.ts (codes
 * and sizes) and bench/health-under-load.ts (`/health` latency while they run).
 */

/** The size each body is built to. */
export const HOSTILE_BODY_BYTES = 1_000_000;

const CREATE_USER =
  'mutation($input: CreateUserInput!) { createUser(input: $input) { user { id } error { code } } }';
const CREATE_USERS =
  'mutation($inputs: [CreateUserInput!]!) { createUsers(inputs: $inputs) { created error { code } } }';

/** A JSON body of about HOSTILE_BODY_BYTES: `{"query":…,"variables":{"<name>":<value>}}`. */
const body = (query: string, name: string, value: string) =>
  `{"query":${JSON.stringify(query)},"variables":{"${name}":${value}}}`;

function unknownKeys(): string {
  const keys: string[] = ['"name":"n"'];
  let length = keys[0].length;
  for (let i = 0; length < HOSTILE_BODY_BYTES - 200; i += 1) {
    keys.push(`"k${i}":1`);
    length += keys[keys.length - 1].length + 1;
  }
  return `{${keys.join(',')}}`;
}

export interface HostileBody {
  shape: string;
  body: () => string;
  /** The path the refusal names. */
  field: RegExp;
}

export const HOSTILE_BODIES: HostileBody[] = [
  {
    shape: '70,000 unknown keys in $input',
    body: () => body(CREATE_USER, 'input', unknownKeys()),
    field: /^input$/,
  },
  {
    shape: 'input objects nested 1 MB deep',
    body: () => {
      const level = '{"name":"n","x":';
      const depth = Math.floor((HOSTILE_BODY_BYTES - 200) / (level.length + 1));
      return body(CREATE_USER, 'input', `${level.repeat(depth)}1${'}'.repeat(depth)}`);
    },
    field: /^input(\.x)+$/,
  },
  {
    shape: 'a 100,000-item list',
    body: () => body(CREATE_USERS, 'inputs', `[${Array(100_000).fill('{"n":"x"}').join(',')}]`),
    field: /^inputs$/,
  },
  {
    shape: 'a 1 MB string',
    body: () => body(CREATE_USER, 'input', `{"name":"${'n'.repeat(HOSTILE_BODY_BYTES - 200)}"}`),
    field: /^input\.name$/,
  },
];
