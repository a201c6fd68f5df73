/**
 * The import graph of src/, read with the TypeScript compiler API, and the three rules the
 * architecture holds it to: no circle (a strongly connected component of more than one file, or a
 * file importing itself), no import up the layers of docs/ARCHITECTURE.md, and no import into
 * another component's files but its facade (`index.ts`).
 *
 * Every import counts, type-only ones too (`import type`, `export type ... from`, `import('x')`
 * in a type, a dynamic `import()`): import-x's no-cycle skips type-only imports, so a circle made
 * of them passes lint but not this graph.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..', '..');

/** A file's imports of another file of the graph; paths are relative to the root, with `/`. */
export interface ImportEdge {
  from: string;
  to: string;
  /** The specifier as written, and its line (1-based), for the failure message. */
  specifier: string;
  line: number;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

/**
 * The graph of every `.ts` file under `src/`, as committed, with `overlay` (root-relative path →
 * text) written over it: a planted file is read as if it were there.
 */
export function importGraph(overlay: Record<string, string> = {}): ImportGraph {
  const onDisk = ts.sys
    .readDirectory(path.join(ROOT, 'src'), ['.ts'])
    .map((file) => path.relative(ROOT, file).split(path.sep).join('/'));
  const files = [...new Set([...onDisk, ...Object.keys(overlay)])].sort();
  const known = new Set(files);
  const read = (file: string): string | undefined => {
    const relative = path.relative(ROOT, file).split(path.sep).join('/');
    if (Object.hasOwn(overlay, relative)) return overlay[relative];
    return ts.sys.readFile(file);
  };
  const host: ts.ModuleResolutionHost = {
    fileExists: (file) => read(file) !== undefined,
    readFile: read,
  };
  const options: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Node10 };
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const absolute = path.join(ROOT, from);
    const source = ts.createSourceFile(absolute, read(absolute) ?? '', ts.ScriptTarget.Latest);
    for (const literal of moduleSpecifiers(source)) {
      const resolved = ts.resolveModuleName(literal.text, absolute, options, host).resolvedModule;
      if (resolved === undefined || resolved.isExternalLibraryImport) continue;
      const to = path.relative(ROOT, resolved.resolvedFileName).split(path.sep).join('/');
      if (!known.has(to)) continue;
      const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
      edges.push({ from, to, specifier: literal.text, line });
    }
  }
  return { files, edges };
}

/** Every module specifier of a file: static, re-exported, type-only, `import()` and `import('x').T`. */
function moduleSpecifiers(source: ts.SourceFile): ts.StringLiteralLike[] {
  const found: ts.StringLiteralLike[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteralLike(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)
    ) {
      found.push(node.moduleReference.expression);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0]);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteralLike(node.argument.literal)
    ) {
      found.push(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The circles: strongly connected components (Tarjan) of two or more files, or a self-import. */
export function circles({ files, edges }: ImportGraph): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(to)!));
      } else if (onStack.has(to)) {
        lowest.set(file, Math.min(lowest.get(file)!, index.get(to)!));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return found;
}

/**
 * The layers of docs/ARCHITECTURE.md, lowest first, read by the same code eslint.config.mjs reads
 * them with (scripts/architecture-layers.mjs, an ES module: run in a child Node, as jest loads
 * CommonJS). `document` replaces the committed text.
 */
export function documentedLayers(document?: string): string[][] {
  const script =
    "import { readLayers } from './scripts/architecture-layers.mjs';" +
    'let text = undefined; for await (const chunk of process.stdin) text = (text ?? "") + chunk;' +
    'process.stdout.write(JSON.stringify(readLayers(text)));';
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    input: document ?? '',
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(output) as string[][];
}

/** The layer of a file: the index of the row naming it or its folder; undefined if none does. */
export function layerOf(file: string, layers: string[][]): number | undefined {
  const at = layers.findIndex((modules) =>
    modules.some((module) => file === module || file.startsWith(`${module}/`)),
  );
  return at === -1 ? undefined : at;
}

/** Imports from a lower layer to a higher one. */
export function upwardImports(graph: ImportGraph, layers: string[][]): ImportEdge[] {
  return graph.edges.filter((edge) => {
    const from = layerOf(edge.from, layers);
    const to = layerOf(edge.to, layers);
    return from !== undefined && to !== undefined && to > from;
  });
}

/** The component a file belongs to: its folder under src/, or the file itself at the top. */
export function componentOf(file: string): string {
  return file.split('/').slice(0, 2).join('/');
}

/**
 * Imports that reach past another component's facade: into `src/<folder>/` at any file but its
 * `index.ts`. Files at the top of src/ are components of one file and need no facade.
 */
export function deepImports({ edges }: ImportGraph): ImportEdge[] {
  return edges.filter((edge) => {
    const target = componentOf(edge.to);
    if (target === componentOf(edge.from) || target.endsWith('.ts')) return false;
    return edge.to !== `${target}/index.ts` && !PRELOADS.has(`${edge.from} -> ${edge.to}`);
  });
}

/**
 * The one second door: the process entry imports the trace starter first of all, for its side
 * effect (the instrumentations must hook http, graphql and mongodb before anything requires them),
 * which an import of the folder's index.ts would not guarantee.
 */
const PRELOADS = new Set(['src/main.ts -> src/telemetry/start.ts']);

/** One line per edge, for a failure message. */
export function listed(edges: ImportEdge[]): string {
  return edges.map((e) => `${e.from}:${e.line} imports ${e.specifier} (${e.to})`).join('\n');
}
