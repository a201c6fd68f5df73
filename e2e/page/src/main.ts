/**
 * The example page's logic: create users and list them, through plain `fetch`, urql or Apollo
 * Client (./apollo.ts: a newest-first list kept in its cache, and two creates in one document).
 *
 * Contract with the browser test: both clients send POST with `Content-Type: application/json`, the
 * one way a cross-origin browser request gets past the service's CSRF prevention without extra
 * headers (a preflighted request). urql would send queries as GET by default, which CSRF prevention
 * refuses, so `preferGetMethod` is off. An error whose `extensions.field` names an input is shown in
 * that input's `[data-error-for]` element (with `data-code` set to its code), whether it came as data
 * (a payload's `error { code message field }`, the expected failures) or as a top-level error's
 * `extensions` (request-level failures); anything else goes to `#status` with `data-state="error"`. `body[data-ready]` is set once the first list is shown.
 * `#userid-counter` shows the `userid` counter live, from a `sequenceChanged` subscription over
 * graphql-ws on the API's own URL (no polling, no refetch): `data-value` is the last value issued,
 * `data-live="true"` once the first event came, `data-live="error"` with the message if it failed.
 * `#latest` (the latest sign-ups, `data-ready="true"` once shown) and `#users-table` (a page of
 * users, "Next page" / "First page") render only from Apollo's cache; `userCreated` events over
 * Server-Sent Events keep the first current with no refetch, where WebSockets are blocked too.
 * Operations are the typed documents codegen builds from `../operations/*.graphql`, so a schema change
 * that breaks this page breaks `npm run typecheck`.
 */
import {
  Client,
  createRequest,
  fetchExchange,
  stringifyDocument,
  type TypedDocumentNode,
} from '@urql/core';
import type { ApolloClient } from '@apollo/client';
import { createClient } from 'graphql-ws';
import {
  CreateUserDocument,
  UserIdCounterDocument,
  UsersDocument,
  type UserIdCounterSubscription,
  type CreateUserInput,
  type IdStrategy,
} from '../gql/graphql';
import {
  createApollo,
  createOne,
  createPair,
  listenForSignUps,
  watchLatest,
  watchNewest,
  watchTablePage,
  type TablePage,
  type UserEdge,
} from './apollo';
import { showInvoiceNumbers } from './invoice-number';

/** An error as the page shows it: the `extensions` a frontend codes against. */
interface ShownError {
  message: string;
  code?: string;
  field?: string;
}

type Outcome<Result> = { data: Result } | { error: ShownError };

interface FormattedErrorLike {
  message: string;
  extensions?: Record<string, unknown>;
}

/** One way of sending a typed operation; the page has two, chosen per submit. */
type Transport = <Result, Variables extends Record<string, unknown>>(
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
) => Promise<Outcome<Result>>;

function outcomeOf<Result>(
  data: Result | null | undefined,
  errors: readonly FormattedErrorLike[] | undefined,
): Outcome<Result> {
  const first = errors?.[0];
  if (first !== undefined) {
    const { code, field } = first.extensions ?? {};
    return {
      error: {
        message: first.message,
        code: typeof code === 'string' ? code : undefined,
        field: typeof field === 'string' ? field : undefined,
      },
    };
  }
  if (data === null || data === undefined)
    return { error: { message: 'The response held neither data nor errors.' } };
  return { data };
}

function fetchTransport(url: string): Transport {
  return async <Result, Variables extends Record<string, unknown>>(
    document: TypedDocumentNode<Result, Variables>,
    variables: Variables,
  ): Promise<Outcome<Result>> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
        },
        body: JSON.stringify({ query: stringifyDocument(document), variables }),
      });
    } catch (error) {
      return { error: { message: `Network error: ${(error as Error).message}` } };
    }
    try {
      const body = (await response.json()) as {
        data?: Result | null;
        errors?: FormattedErrorLike[];
      };
      return outcomeOf(body.data, body.errors);
    } catch {
      return { error: { message: `HTTP ${response.status}: the response was not JSON` } };
    }
  };
}

function urqlTransport(url: string): Transport {
  const client = new Client({
    url,
    exchanges: [fetchExchange],
    preferGetMethod: false,
    requestPolicy: 'network-only',
  });
  return async (document, variables) => {
    const definition = document.definitions.find((node) => node.kind === 'OperationDefinition');
    const kind = definition?.kind === 'OperationDefinition' ? definition.operation : 'query';
    const operation = client.createRequestOperation(kind, createRequest(document, variables));
    const result = await client.executeRequestOperation(operation).toPromise();
    if (result.error?.networkError)
      return { error: { message: `Network error: ${result.error.networkError.message}` } };
    return outcomeOf(result.data, result.error?.graphQLErrors);
  };
}

function element<T extends HTMLElement>(selector: string): T {
  const found = document.querySelector<T>(selector);
  if (found === null) throw new Error(`The page has no ${selector}`);
  return found;
}

type State = 'idle' | 'busy' | 'ok' | 'error';

/** A form with its status line: where its outcomes and its field errors are shown. */
class Panel {
  constructor(
    readonly form: HTMLFormElement,
    private readonly status: HTMLParagraphElement,
  ) {}

  showStatus(text: string, state: State): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
  }

  private inputNamed(name: string): HTMLInputElement | null {
    return this.form.querySelector<HTMLInputElement>(`input[name="${CSS.escape(name)}"]`);
  }

  clearFieldErrors(): void {
    this.form.querySelectorAll<HTMLOutputElement>('[data-error-for]').forEach((output) => {
      output.textContent = '';
      delete output.dataset.code;
      this.inputNamed(output.dataset.errorFor ?? '')?.removeAttribute('aria-invalid');
    });
  }

  /** Shows the error beside the field it names (under `prefix`), else in the status line. */
  showError(error: ShownError, prefix = ''): void {
    const field = error.field ? `${prefix}${error.field}` : null;
    const output =
      field === null
        ? null
        : this.form.querySelector<HTMLOutputElement>(`[data-error-for="${CSS.escape(field)}"]`);
    if (output !== null && field !== null) {
      output.textContent = error.message;
      output.dataset.code = error.code ?? '';
      this.inputNamed(field)?.setAttribute('aria-invalid', 'true');
      this.showStatus('Please correct the highlighted field.', 'error');
      return;
    }
    this.showStatus(error.code ? `${error.code}: ${error.message}` : error.message, 'error');
  }
}

const signUp = new Panel(
  element<HTMLFormElement>('#signup'),
  element<HTMLParagraphElement>('#status'),
);
const pair = new Panel(
  element<HTMLFormElement>('#pair'),
  element<HTMLParagraphElement>('#pair-status'),
);
const userList = element<HTMLOListElement>('#users');
const apolloList = element<HTMLOListElement>('#apollo-users');

/** An error as data (a payload's `error`) in the shape the page shows. */
const shownError = (error: { code: string; message: string; field?: string | null }) => ({
  code: error.code,
  message: error.message,
  field: error.field ?? undefined,
});

function showUsers(list: HTMLElement, edges: UserEdge[], tag = 'li'): void {
  list.replaceChildren(
    ...edges.map(({ node }) => {
      const item = document.createElement(tag);
      item.dataset.id = node.id;
      item.dataset.strategy = node.createdWith;
      item.textContent = `#${node.id} ${node.name}${node.email ? ` <${node.email}>` : ''} (${node.createdWith})`;
      return item;
    }),
  );
}

async function refreshUsers(send: Transport): Promise<void> {
  const outcome = await send(UsersDocument, { first: 100 });
  if ('error' in outcome) signUp.showError(outcome.error);
  else if (outcome.data.users !== null) showUsers(userList, outcome.data.users.edges);
}

function inputOf(fields: FormData, prefix = ''): CreateUserInput {
  const email = String(fields.get(`${prefix}email`) ?? '').trim();
  return { name: String(fields.get(`${prefix}name`) ?? ''), email: email === '' ? null : email };
}

/** Apollo Client: the created user goes into the cached newest-first list, not through a refetch. */
async function createWithApollo(client: ApolloClient, fields: FormData): Promise<void> {
  signUp.clearFieldErrors();
  signUp.showStatus('Creating…', 'busy');
  try {
    const payload = await createOne(
      client,
      inputOf(fields),
      String(fields.get('strategy')) as IdStrategy,
    );
    if (payload?.error) signUp.showError(shownError(payload.error));
    else if (payload?.user)
      signUp.showStatus(`Created user ${payload.user.id} with ${payload.user.createdWith}.`, 'ok');
    else signUp.showStatus('The response held no user.', 'error');
  } catch (error) {
    signUp.showStatus(`Network error: ${(error as Error).message}`, 'error');
  }
}

/** Two creates in one document: each answers alone, so one can succeed beside the other's error. */
async function createPairWithApollo(client: ApolloClient, fields: FormData): Promise<void> {
  pair.clearFieldErrors();
  pair.showStatus('Creating both…', 'busy');
  try {
    const answer = await createPair(client, inputOf(fields, 'first.'), inputOf(fields, 'second.'));
    const outcomes = [
      ['first.', answer?.first],
      ['second.', answer?.second],
    ] as const;
    const created = outcomes.filter(([, outcome]) => outcome?.userEdge);
    const failures = outcomes.filter(([, outcome]) => outcome?.error);
    for (const [prefix, outcome] of failures) pair.showError(shownError(outcome!.error!), prefix);
    if (failures.length === 0) pair.showStatus(`Created ${created.length} users.`, 'ok');
  } catch (error) {
    pair.showStatus(`Network error: ${(error as Error).message}`, 'error');
  }
}

async function createUser(send: Transport, fields: FormData): Promise<void> {
  signUp.clearFieldErrors();
  signUp.showStatus('Creating…', 'busy');
  const outcome = await send(CreateUserDocument, {
    input: inputOf(fields),
    strategy: String(fields.get('strategy')) as IdStrategy,
  });
  if ('error' in outcome) {
    signUp.showError(outcome.error);
    return;
  }
  const payload = outcome.data.createUser;
  // An expected failure (an email taken, a name refused) is data: the payload's `error`.
  if (payload?.error) {
    signUp.showError(shownError(payload.error));
    return;
  }
  const { user, attempts } = payload ?? {};
  if (!user) {
    signUp.showStatus('The response held no user.', 'error');
    return;
  }
  signUp.showStatus(
    `Created user ${user.id} with ${user.createdWith} in ${attempts} attempt(s).`,
    'ok',
  );
  await refreshUsers(send);
}

/** The `userid` counter, live: each event of the subscription is its new value. */
function watchUserIdCounter(api: string): void {
  const counter = element<HTMLOutputElement>('#userid-counter');
  const subscriptions = createClient({ url: api.replace(/^http/, 'ws') });
  subscriptions.subscribe<UserIdCounterSubscription>(
    { query: stringifyDocument(UserIdCounterDocument) },
    {
      next: ({ data, errors }) => {
        const sequence = data?.sequenceChanged?.sequence;
        if (errors !== undefined || !sequence) {
          counter.dataset.live = 'error';
          counter.textContent = errors?.[0]?.message ?? 'no counter';
          return;
        }
        counter.dataset.value = String(sequence.value);
        counter.dataset.live = 'true';
        counter.textContent = String(sequence.value);
      },
      error: (error) => {
        counter.dataset.live = 'error';
        counter.textContent = error instanceof Error ? error.message : 'the subscription failed';
      },
      complete: () => {},
    },
  );
}

/**
 * The live "latest sign-ups" list (`#latest`, its total in `#latest-total`): rendered only from
 * the Apollo cache, which `userCreated` events (over SSE) and the page's own creates update.
 */
function showLatest(apollo: ApolloClient): void {
  const latest = element<HTMLOListElement>('#latest');
  const total = element<HTMLOutputElement>('#latest-total');
  watchLatest(apollo, (users) => {
    showUsers(latest, users.edges);
    total.textContent = String(users.totalCount);
    total.dataset.value = String(users.totalCount);
    latest.dataset.ready = 'true';
  });
  listenForSignUps(apollo, (message) => {
    latest.dataset.live = 'error';
    total.textContent = message;
  });
}

/**
 * The users table, one page at a time (`#users-table`): "Next page" shows the page after the
 * shown one's end cursor, "First page" the first; `#table-page` says which (1-based).
 */
function showTable(apollo: ApolloClient): void {
  const rows = element<HTMLOListElement>('#users-table');
  const next = element<HTMLButtonElement>('#next-page');
  const first = element<HTMLButtonElement>('#first-page');
  const pageNumber = element<HTMLOutputElement>('#table-page');
  const cursors: Array<string | null> = [null];
  let shown: TablePage | null = null;
  let stop = () => {};
  const open = (index: number) => {
    stop();
    pageNumber.textContent = String(index + 1);
    rows.dataset.ready = 'false';
    stop = watchTablePage(apollo, cursors[index], (page) => {
      shown = page;
      showUsers(rows, page.edges);
      next.disabled = !page.pageInfo.hasNextPage;
      rows.dataset.total = String(page.totalCount);
      rows.dataset.ready = 'true';
    });
  };
  next.addEventListener('click', () => {
    if (shown?.pageInfo.endCursor == null) return;
    cursors.push(shown.pageInfo.endCursor);
    open(cursors.length - 1);
  });
  first.addEventListener('click', () => {
    cursors.splice(1);
    open(0);
  });
  open(0);
}

async function start(): Promise<void> {
  const api = new URLSearchParams(location.search).get('api');
  if (api === null) {
    signUp.showStatus('Open this page with ?api=<url of the service’s /graphql>.', 'error');
    return;
  }
  const transports: Record<string, Transport> = {
    fetch: fetchTransport(api),
    urql: urqlTransport(api),
  };
  const apollo = createApollo(api);
  signUp.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submitter = event.submitter as HTMLButtonElement | null;
    const fields = new FormData(signUp.form);
    if (submitter?.value === 'apollo') void createWithApollo(apollo, fields);
    else void createUser(transports[submitter?.value ?? 'fetch'], fields);
  });
  pair.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void createPairWithApollo(apollo, new FormData(pair.form));
  });
  watchNewest(apollo, (edges) => {
    showUsers(apolloList, edges);
    apolloList.dataset.ready = 'true';
  });
  watchUserIdCounter(api);
  void showInvoiceNumbers(api);
  showLatest(apollo);
  showTable(apollo);
  await refreshUsers(transports.fetch);
  document.body.dataset.ready = 'true';
}

void start();
