/**
 * The local explorer: GraphiQL from the service's own npm dependencies, bundled at build time
 * (scripts/build-explorer.mjs) and served by the service itself at `/explorer`, so it works with no
 * network beyond the service (Apollo Sandbox loads from Apollo's CDN).
 *
 * The page (src/http/explorer.ts) hands over the endpoint and the example document as JSON in
 * `#explorer-config`; GraphiQL reads the schema by introspection, as Sandbox does. Headers start
 * empty and are not stored: a token typed into them stays in this tab.
 */
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';

interface ExplorerConfig {
  endpoint: string;
  document: string;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
}

const config = JSON.parse(
  document.getElementById('explorer-config')?.textContent ?? '{}',
) as ExplorerConfig;

const root = document.getElementById('explorer');
if (root !== null) {
  createRoot(root).render(
    createElement(GraphiQL, {
      fetcher: createGraphiQLFetcher({ url: new URL(config.endpoint, location.href).href }),
      defaultQuery: config.document,
      query: config.document,
      variables: JSON.stringify(config.variables, null, 2),
      headers: JSON.stringify(config.headers, null, 2),
      defaultEditorToolsVisibility: 'variables',
      shouldPersistHeaders: false,
    }),
  );
}
