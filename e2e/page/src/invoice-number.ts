/**
 * The page's invoice numbers: a sequence written `INV-{YYYY}-{seq:6}` that restarts every year in
 * Berlin. `#invoice-number` shows the last number issued, live (`sequenceChanged` over graphql-ws,
 * so numbers taken by another tab or a back end show too), `#next-invoice` takes the next one and
 * `#taken-invoice` shows it as the service wrote it: the page formats nothing itself.
 *
 * Contract with the browser test: `#invoice-number[data-live="true"]` once the first event came
 * (`"error"` with the message if the subscription failed), its text the sequence's
 * `formattedValue` (`–` before the first number); `#taken-invoice[data-state]` is `ok` with the
 * number or `error` with the message.
 */
import { stringifyDocument, type TypedDocumentNode } from '@urql/core';
import { createClient } from 'graphql-ws';
import {
  DefineInvoiceNumbersDocument,
  InvoiceNumberDocument,
  NextInvoiceNumberDocument,
  type InvoiceNumberSubscription,
} from '../gql/graphql';

function element<T extends HTMLElement>(selector: string): T {
  const found = document.querySelector<T>(selector);
  if (found === null) throw new Error(`The page has no ${selector}`);
  return found;
}

/** Sends one mutation as a JSON POST; its data, or the first error's message thrown. */
async function send<Result>(
  api: string,
  document: TypedDocumentNode<Result, Record<string, never>>,
): Promise<Result> {
  const response = await fetch(api, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: stringifyDocument(document) }),
  });
  const body = (await response.json()) as { data?: Result; errors?: Array<{ message: string }> };
  if (body.errors?.[0] !== undefined || body.data === undefined) {
    throw new Error(body.errors?.[0]?.message ?? `HTTP ${response.status}`);
  }
  return body.data;
}

function watchInvoiceNumber(api: string): void {
  const shown = element<HTMLOutputElement>('#invoice-number');
  createClient({ url: api.replace(/^http/, 'ws') }).subscribe<InvoiceNumberSubscription>(
    { query: stringifyDocument(InvoiceNumberDocument) },
    {
      next: ({ data, errors }) => {
        const sequence = data?.sequenceChanged?.sequence;
        if (errors !== undefined || !sequence) {
          shown.dataset.live = 'error';
          shown.textContent = errors?.[0]?.message ?? 'no invoice numbers';
          return;
        }
        shown.dataset.live = 'true';
        shown.textContent = sequence.formattedValue ?? '–';
      },
      error: (error) => {
        shown.dataset.live = 'error';
        shown.textContent = error instanceof Error ? error.message : 'the subscription failed';
      },
      complete: () => {},
    },
  );
}

/** Defines the invoice numbers (idempotent), then shows them live and takes one on a click. */
export async function showInvoiceNumbers(api: string): Promise<void> {
  const taken = element<HTMLOutputElement>('#taken-invoice');
  const fail = (error: unknown) => {
    taken.dataset.state = 'error';
    taken.textContent = error instanceof Error ? error.message : String(error);
  };
  try {
    const defined = await send(api, DefineInvoiceNumbersDocument);
    if (defined.createSequence?.error) throw new Error(defined.createSequence.error.message);
  } catch (error) {
    fail(error);
    return;
  }
  watchInvoiceNumber(api);
  element<HTMLButtonElement>('#next-invoice').addEventListener('click', () => {
    takeNext(api, taken).catch(fail);
  });
}

/** Takes the next invoice number and shows it as the service wrote it. */
async function takeNext(api: string, taken: HTMLOutputElement): Promise<void> {
  const allocated = (await send(api, NextInvoiceNumberDocument)).allocateSequence;
  if (allocated?.error) throw new Error(allocated.error.message);
  taken.dataset.state = 'ok';
  taken.textContent = allocated?.range?.formatted?.[0] ?? '';
}
