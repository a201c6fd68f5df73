/**
 * The service's configuration, read once from the environment and validated with zod.
 *
 * Invariants: every value the rest of the service sees is typed and in range; a bad value stops the
 * process at start with a message naming the variable, never later in a request. Defaults are the
 * safe choice (write concern `majority`, bounded database calls).
 *
 * A component that sits above this module declares its own variables as a zod schema beside its
 * code (each strategy's, src/strategies) and the process reads them with these
 * (`loadEnvironment`, composed by src/main.ts), so one bad environment is one message listing
 * every problem, whichever component declared the variable.
 */
import { z } from 'zod';
import { parseClientTokens, tokenProblem } from './auth/index';
import {
  BUDGETS,
  DEFAULT_BODY_LIMIT,
  type BudgetName,
  type BudgetRole,
  type BudgetWindow,
} from './limits';

/** A variable holding a whole number from 1 to `max`, `fallback` when unset; its messages name it. */
export const positiveIntVariable = (
  name: string,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(1, `${name} must be at least 1`)
    .max(max, `${name} must be at most ${max}`)
    .default(fallback);

/** Every caller budget (src/limits.ts `BUDGETS`) as configured, or null when budgets are off. */
export type BudgetTable = Readonly<Record<BudgetName, Readonly<Record<BudgetRole, BudgetWindow>>>>;

const BUDGET_OVERRIDE =
  /^([A-Za-z]+)\.(anonymous|client|admin)=(?:(\d{1,12})\/(\d{1,7})|(unlimited))$/;

/**
 * `BUDGETS`: `off`, or a comma-separated list of `budget.role=points/seconds` or
 * `budget.role=unlimited` over the defaults, e.g. `usersCreated.anonymous=10/600`.
 */
function parseBudgets(text: string): { table: BudgetTable | null; problems: string[] } {
  const trimmed = text.trim();
  if (trimmed === 'off') return { table: null, problems: [] };
  const table = Object.fromEntries(
    Object.entries(BUDGETS).map(([name, roles]) => [name, { ...roles }]),
  ) as Record<BudgetName, Record<BudgetRole, BudgetWindow>>;
  const problems: string[] = [];
  for (const item of trimmed === '' ? [] : trimmed.split(',')) {
    const match = BUDGET_OVERRIDE.exec(item.trim());
    const name = match?.[1] as BudgetName | undefined;
    if (match === null || name === undefined || !Object.hasOwn(BUDGETS, name)) {
      problems.push(
        `"${item.trim().slice(0, 60)}" is not budget.role=points/seconds or budget.role=unlimited (budgets: ${Object.keys(BUDGETS).join(', ')}; roles: anonymous, client, admin)`,
      );
      continue;
    }
    const role = match[2] as BudgetRole;
    const seconds = Number(match[4]);
    if (match[5] === undefined && seconds < 1) {
      problems.push(`${name}.${role}: the window must be at least 1 second`);
      continue;
    }
    table[name][role] = match[5] === undefined ? { points: Number(match[3]), seconds } : null;
  }
  return { table, problems };
}

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const environmentSchema = z.object({
  PORT: z.coerce
    .number({ error: 'PORT must be a whole number' })
    .int('PORT must be a whole number')
    .min(0, 'PORT must be 0 to 65535')
    .max(65535, 'PORT must be 0 to 65535')
    .default(4000),
  MONGODB_URI: optionalText.refine(
    (uri) => uri === undefined || /^mongodb(\+srv)?:\/\//.test(uri),
    {
      message: 'MONGODB_URI must start with mongodb:// or mongodb+srv://',
    },
  ),
  EMBEDDED_DB: z
    .enum(['mongod', 'standin'], { error: 'EMBEDDED_DB must be mongod or standin' })
    .optional(),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'MONGODB_DB must be 1 to 63 letters, digits, _ or -')
    .default('sequential_ids'),
  NODE_ENV: z
    .enum(['development', 'production', 'test'], {
      error: 'NODE_ENV must be development, production or test',
    })
    .default('development'),
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((list) =>
      list
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ''),
    )
    .refine((origins) => origins.every((origin) => origin === '*' || URL.canParse(origin)), {
      message:
        'CORS_ORIGINS must be a comma-separated list of origins like https://app.example.com',
    }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent',
    })
    .default('info'),
  // Not trimmed: a token is taken exactly as given, and a space in it is refused (src/auth/tokens.ts).
  ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((token) => (token === '' ? undefined : token))
    .superRefine((token, ctx) => {
      const problem = token === undefined ? null : tokenProblem(token);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: `ADMIN_TOKEN ${problem}` });
    }),
  CLIENT_TOKENS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const { clients, problems } = parseClientTokens(text);
      for (const problem of problems) {
        ctx.addIssue({ code: 'custom', message: `CLIENT_TOKENS: ${problem}` });
      }
      return clients;
    }),
  WRITE_CONCERN: z
    .enum(['majority', '1'], { error: 'WRITE_CONCERN must be majority or 1' })
    .default('majority')
    .transform((w) => (w === 'majority' ? ('majority' as const) : 1)),
  DB_TIMEOUT_MS: positiveIntVariable('DB_TIMEOUT_MS', 5_000, 600_000),
  REQUEST_TIMEOUT_MS: positiveIntVariable('REQUEST_TIMEOUT_MS', 15_000, 600_000),
  SHUTDOWN_GRACE_MS: z.coerce
    .number({ error: 'SHUTDOWN_GRACE_MS must be a whole number' })
    .int('SHUTDOWN_GRACE_MS must be a whole number')
    .min(0, 'SHUTDOWN_GRACE_MS must be at least 0')
    .max(600_000, 'SHUTDOWN_GRACE_MS must be at most 600000')
    .optional(),
  TRUST_PROXY: z.coerce
    .number({ error: 'TRUST_PROXY must be a whole number of proxies (0 to 10)' })
    .int('TRUST_PROXY must be a whole number of proxies (0 to 10)')
    .min(0, 'TRUST_PROXY must be 0 to 10')
    .max(10, 'TRUST_PROXY must be 0 to 10')
    .default(0),
  BUDGETS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const { table, problems } = parseBudgets(text);
      for (const problem of problems) {
        ctx.addIssue({ code: 'custom', message: `BUDGETS: ${problem}` });
      }
      return table;
    }),
  BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)?$/i, 'BODY_LIMIT must be a size like 100kb or 1mb')
    .default(DEFAULT_BODY_LIMIT),
  // The manifest of trusted documents (src/http/trusted-documents.ts); enforced in production.
  TRUSTED_DOCUMENTS: z
    .string()
    .optional()
    .transform((path) => (path === '' ? undefined : path)),
  TRUSTED_DOCUMENTS_FOR: z
    .enum(['anonymous', 'clients'], {
      error: 'TRUSTED_DOCUMENTS_FOR must be anonymous or clients',
    })
    .default('anonymous'),
});

/**
 * How long the service keeps serving after SIGTERM with `/ready` answering 503, before it stops
 * accepting connections: long enough for a load balancer's readiness probe to fail and take the
 * instance out (Kubernetes probes every 10 s by default and needs one failure at a period of a few
 * seconds, docs/operations.md); 0 under NODE_ENV=test, where nothing routes by readiness.
 */
const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

/** Defaults that depend on other variables, set once every variable is valid on its own. */
const configSchema = environmentSchema.transform((env) => ({
  ...env,
  SHUTDOWN_GRACE_MS:
    env.SHUTDOWN_GRACE_MS ?? (env.NODE_ENV === 'test' ? 0 : DEFAULT_SHUTDOWN_GRACE_MS),
}));

export type Config = z.output<typeof configSchema>;

/** A client token equal to the admin token would make that client an admin: refused. */
function sharedTokenProblem(config: Config): string | null {
  const shared = config.CLIENT_TOKENS.find(({ token }) => token === config.ADMIN_TOKEN);
  return shared === undefined
    ? null
    : `  CLIENT_TOKENS: the token of client ${shared.client} is also ADMIN_TOKEN`;
}

/** Thrown for a bad environment; its message lists every problem, one per line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The environment as a process has it: each variable a string, or absent. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Each problem on a line of its own, named by its variable (the last step of its path). */
function problemLines(error: z.ZodError): string[] {
  return error.issues.map((issue) => `  ${String(issue.path.at(-1) ?? '')}: ${issue.message}`);
}

/**
 * Reads the environment once: the service's own variables (`config`) and `settings`, the variables
 * components above this module declare for themselves (a zod schema that reads what it declares
 * from the whole environment and ignores the rest). Throws one ConfigError listing every problem
 * of both.
 */
export function loadEnvironment<Settings>(
  settings: z.ZodType<Settings>,
  env: Environment = process.env,
): { config: Config; settings: Settings } {
  const config = configSchema.safeParse(env);
  const own = settings.safeParse(env);
  if (config.success && own.success) {
    const shared = sharedTokenProblem(config.data);
    if (shared === null) return { config: config.data, settings: own.data };
    throw new ConfigError(`Invalid configuration:\n${shared}`);
  }
  const problems = [config, own].flatMap((parsed) =>
    parsed.success ? [] : problemLines(parsed.error),
  );
  throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
}

/** The service's own variables alone (`loadEnvironment` without any component's). */
export function loadConfig(env: Environment = process.env): Config {
  return loadEnvironment(z.object({}), env).config;
}
