/**
 * The documentation is split by reader: a short README.md and pages in docs/, the CHANGELOG and
 * CONTRIBUTING. These tests keep the split navigable: every relative link of every page leads to a
 * file that exists and, with an anchor, to a heading of that file (GitHub's slugs, via
 * github-slugger); every page of docs/ opens with a table of contents naming each of its sections;
 * and every section moved out of the README is one click away from it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';

const ROOT = path.resolve(__dirname, '..', '..');
const DOC_PAGES = readdirSync(path.join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  'packages/mongodb-standin/README.md',
  ...DOC_PAGES,
];

/** The page's text outside fenced code blocks. */
function prose(file: string): string {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function headings(file: string): { level: number; text: string; slug: string }[] {
  const slugger = new GithubSlugger();
  return [...prose(file).matchAll(/^(#{1,6}) (.+)$/gm)].map((match) => ({
    level: match[1].length,
    text: match[2],
    slug: slugger.slug(match[2]),
  }));
}

/** Relative links of a page as `file#anchor` paths from the repository root. */
function links(file: string): string[] {
  return [...prose(file).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => {
      const [to, anchor] = target.split('#');
      const resolved =
        to === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), to));
      return anchor === undefined ? resolved : `${resolved}#${anchor}`;
    });
}

test.each(PAGES)('every relative link of %s leads to a file and a heading that exist', (page) => {
  const broken = links(page).filter((link) => {
    const [file, anchor] = link.split('#');
    if (!existsSync(path.join(ROOT, file))) return true;
    return anchor !== undefined && !headings(file).some((heading) => heading.slug === anchor);
  });
  expect(broken).toEqual([]);
});

test.each(DOC_PAGES)('%s opens with a table of contents naming each of its sections', (page) => {
  const sections = headings(page).filter(
    (heading) => heading.level === 2 && heading.text !== 'Contents',
  );
  const contents = prose(page).split('\n## Contents\n')[1]?.split('\n## ')[0] ?? '';
  const listed = links(`${page}`).filter(
    (link) => link.startsWith(`${page}#`) && contents.includes(`(#${link.split('#')[1]})`),
  );
  expect(
    sections.map((section) => `${page}#${section.slug}`).filter((s) => !listed.includes(s)),
  ).toEqual([]);
});

test('every page and every section moved out of the README is one click away from it', () => {
  const fromReadme = new Set(links('README.md'));
  const moved = [
    ...DOC_PAGES,
    'CHANGELOG.md',
    'CONTRIBUTING.md',
    'docs/api.md#every-example-with-curl',
    'docs/api.md#errors-to-code-against',
    'docs/api.md#calling-the-api-from-a-browser-page',
    'docs/api.md#typed-operations-with-codegen',
    'docs/api.md#sequences',
    'docs/operations.md#who-may-call-what',
    'docs/operations.md#per-request-bounds',
    'docs/operations.md#a-real-mongodb-or-a-replica-set',
    'docs/operations.md#scaling-out',
    'CHANGELOG.md#migrating-from-01',
    'CHANGELOG.md#migrating-from-02',
    'docs/ARCHITECTURE.md#layout',
    'packages/mongodb-standin/README.md',
  ];
  expect(moved.filter((target) => !fromReadme.has(target))).toEqual([]);
});
