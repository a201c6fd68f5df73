/**
 * The example page's logic: create users and list them, through plain `fetch` or through urql.
 *
 * Contract with the browser test: both clients send POST with `Content-Type: application/json`, the
 * one way a cross-origin browser request gets past the service's CSRF prevention without extra
 * headers (a preflighted request). urql would send queries as GET by default, which CSRF prevention
 * refuses, so `preferGetMethod` is off. An error whose `extensions.field` names an input is shown in
 * that input's `[data-error-for]` element (with `data-code` set to `extensions.code`); anything else
 * goes to `#status` with `data-state="error"`. `body[data-ready]` is set once the first list is shown.
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
import {
  CreateUserDocument,
  UsersDocument,
  type IdStrategy,
  type UsersQuery,
} from '../gql/graphql';

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

const form = element<HTMLFormElement>('#signup');
const status = element<HTMLParagraphElement>('#status');
const userList = element<HTMLOListElement>('#users');

function showStatus(text: string, state: 'idle' | 'busy' | 'ok' | 'error'): void {
  status.textContent = text;
  status.dataset.state = state;
}

function inputNamed(name: string): HTMLInputElement | null {
  return form.querySelector<HTMLInputElement>(`input[name="${CSS.escape(name)}"]`);
}

function clearFieldErrors(): void {
  form.querySelectorAll<HTMLOutputElement>('[data-error-for]').forEach((output) => {
    output.textContent = '';
    delete output.dataset.code;
    inputNamed(output.dataset.errorFor ?? '')?.removeAttribute('aria-invalid');
  });
}

/** Shows the error beside the field it names, or in the status line when it names none on this form. */
function showError(error: ShownError): void {
  const output = error.field
    ? form.querySelector<HTMLOutputElement>(`[data-error-for="${CSS.escape(error.field)}"]`)
    : null;
  if (output !== null) {
    output.textContent = error.message;
    output.dataset.code = error.code ?? '';
    inputNamed(error.field ?? '')?.setAttribute('aria-invalid', 'true');
    showStatus('Please correct the highlighted field.', 'error');
    return;
  }
  showStatus(error.code ? `${error.code}: ${error.message}` : error.message, 'error');
}

function showUsers(connection: UsersQuery['users']): void {
  userList.replaceChildren(
    ...connection.edges.map(({ node }) => {
      const item = document.createElement('li');
      item.dataset.id = node.id;
      item.dataset.strategy = node.createdWith;
      item.textContent = `#${node.id} ${node.name}${node.email ? ` <${node.email}>` : ''} (${node.createdWith})`;
      return item;
    }),
  );
}

async function refreshUsers(send: Transport): Promise<void> {
  const outcome = await send(UsersDocument, { first: 100 });
  if ('error' in outcome) showError(outcome.error);
  else showUsers(outcome.data.users);
}

async function createUser(send: Transport, fields: FormData): Promise<void> {
  clearFieldErrors();
  showStatus('Creating…', 'busy');
  const email = String(fields.get('email') ?? '').trim();
  const outcome = await send(CreateUserDocument, {
    input: { name: String(fields.get('name') ?? ''), email: email === '' ? null : email },
    strategy: String(fields.get('strategy')) as IdStrategy,
  });
  if ('error' in outcome) {
    showError(outcome.error);
    return;
  }
  const { user, attempts } = outcome.data.createUser;
  showStatus(`Created user ${user.id} with ${user.createdWith} in ${attempts} attempt(s).`, 'ok');
  await refreshUsers(send);
}

async function start(): Promise<void> {
  const api = new URLSearchParams(location.search).get('api');
  if (api === null) {
    showStatus('Open this page with ?api=<url of the service’s /graphql>.', 'error');
    return;
  }
  const transports: Record<string, Transport> = {
    fetch: fetchTransport(api),
    urql: urqlTransport(api),
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submitter = event.submitter as HTMLButtonElement | null;
    const send = transports[submitter?.value ?? 'fetch'];
    void createUser(send, new FormData(form));
  });
  await refreshUsers(transports.fetch);
  document.body.dataset.ready = 'true';
}

void start();
