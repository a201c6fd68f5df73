/**
 * Lone surrogates in a document's literals, named by argument.
 *
 * JSON and GraphQL escapes can produce UTF-16 halves without their pair; MongoDB stores them as
 * U+FFFD, so the stored text would differ from what was acknowledged. graphql-js refuses them in a
 * document with a syntax error; to name the argument instead (`inputs.1.name`, as for a variable),
 * each lone surrogate is swapped for U+FFFD (same length, so positions hold), that text is parsed,
 * and the argument whose literal spans it is reported. Only a document holding one is parsed here
 * (a regular expression test tells): Apollo would refuse it anyway, and every other document is
 * parsed once, by Apollo. Variables are checked by src/http/input-bounds.ts.
 */
import { Kind, parse, visit, type ValueNode } from 'graphql';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ESCAPED_LONE_SURROGATE =
  /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/g;
const REPLACEMENT = '\ufffd';
const ESCAPED_REPLACEMENT = '\\uFFFD';

function holdsLoneSurrogate(query: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  ESCAPED_LONE_SURROGATE.lastIndex = 0;
  return LONE_SURROGATE.test(query) || ESCAPED_LONE_SURROGATE.test(query);
}

/** The query with every lone surrogate (raw or escaped) replaced, and where they were. */
function withSurrogatesMarked(query: string): { text: string; positions: number[] } {
  const positions: number[] = [];
  const text = query
    .replace(LONE_SURROGATE, (_match, offset: number) => {
      positions.push(offset);
      return REPLACEMENT;
    })
    .replace(ESCAPED_LONE_SURROGATE, (_match, offset: number) => {
      positions.push(offset);
      return ESCAPED_REPLACEMENT;
    });
  return { text, positions };
}

/**
 * The argument path (`name`, `inputs.1.name`) of the first string literal of `query` holding a
 * lone surrogate, or null (also for a document that does not parse: Apollo refuses it).
 */
export function malformedLiteral(query: string, maxTokens: number): string | null {
  if (!holdsLoneSurrogate(query)) return null;
  const { text, positions } = withSurrogatesMarked(query);
  let document;
  try {
    document = parse(text, { maxTokens });
  } catch {
    return null;
  }
  const spans = (node: ValueNode) =>
    node.loc !== undefined && positions.some((at) => at >= node.loc!.start && at < node.loc!.end);
  const inValue = (node: ValueNode, path: string): string | null => {
    switch (node.kind) {
      case Kind.STRING:
        return spans(node) ? path : null;
      case Kind.LIST:
        for (const [index, item] of node.values.entries()) {
          const found = inValue(item, `${path}.${index}`);
          if (found !== null) return found;
        }
        return null;
      case Kind.OBJECT:
        for (const field of node.fields) {
          const found = inValue(field.value, `${path}.${field.name.value}`);
          if (found !== null) return found;
        }
        return null;
      default:
        return null;
    }
  };
  let found: string | null = null;
  visit(document, {
    Argument(argument) {
      found ??= inValue(argument.value, argument.name.value);
    },
  });
  return found;
}
