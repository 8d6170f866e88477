// The documents a user reads (README.md and docs/) stand on their own: they never send anyone to a
// file outside the repository (the product contract and the house notes the project was built
// from are not part of it), every relative link resolves to a file of the repository (and a
// heading of it, when it names one), the README stays short, and docs/ holds no dated run log:
// benchmark runs and their figures belong to bench/HISTORY.md.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? markdownUnder(join(dir, d.name)) : d.name.endsWith('.md') ? [join(dir, d.name)] : [],
  );
}

const USER_DOCUMENTS = ['README.md', ...markdownUnder('docs')];

/** The text outside fenced code blocks, line by line (fenced lines become empty, so numbers stay right). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

const withoutCode = (line: string) => line.replace(/`[^`]*`/g, '');

// What points outside the repository: the directory beside it, and the contract and house
// documents by name (a "section N" of them, too; an RFC's section is fine).
const OUTSIDE = [
  { what: 'a path outside the repository', re: /\.\.\/shared\b|\/work\/shared\b/ },
  { what: 'a document that is not in the repository', re: /\b(API|SPEC|DESIGN|STYLE)\.md\b/ },
  { what: "a section of the contract", re: /\b(SPEC|API) \d+(\.\d+)?[a-z]?\b/ },
  // (a numbered subsection, "section 5.6 of RFC 3339", is a standard's, never the contract's)
  { what: "a section of the contract", re: /(?<!\bRFC \d{3,5},? )\bsections? \d+[a-z]?\b(?!\.\d)/i },
];

/** Every finding of the rules above in one document's text, as `file:line: what (the match)`. */
export function outsideReferences(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { what, re } of OUTSIDE) {
      const m = re.exec(line);
      if (m) found.push(`${file}:${i + 1}: ${what} (${m[0]})`);
    }
  });
  return found;
}

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
const DATE = new RegExp(
  `\\b\\d{1,2} (${MONTHS}|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\\b|\\b(${MONTHS}) \\d{1,2}\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b`,
);
const MEASUREMENT = /\d\s?(µs|us|ms|MiB|KiB|GiB|kB|MB|GB|req\/s|%)(?![\w/])|\b\d+(\.\d+)?\s?s\b(?!\w)|\b\d+\.\d+×|\b\d\.\d{2}\b/;

/**
 * Dated run logs in one document: a heading with a date, or a paragraph (or list item) that has
 * both a date and a measurement, outside code (an example request may well carry a date).
 */
export function datedRunLogs(file: string, text: string): string[] {
  const lines = prose(text).map(withoutCode);
  const found: string[] = [];
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    const block = lines.slice(start, end).join(' ');
    const date = DATE.exec(block);
    const measure = MEASUREMENT.exec(block);
    if (date && measure) found.push(`${file}:${start + 1}: a dated measurement ("${date[0]}" with "${measure[0]}")`);
    start = -1;
  };
  lines.forEach((line, i) => {
    if (/^#{1,6} /.test(line)) {
      flush(i);
      const date = DATE.exec(line);
      if (date) found.push(`${file}:${i + 1}: a dated heading ("${date[0]}")`);
      return;
    }
    // A blank line, or a new list item or table row, starts a new block.
    if (line.trim() === '' || /^\s*([-*+]|\d+\.)\s|^\s*\|/.test(line)) flush(i);
    if (line.trim() !== '' && start < 0) start = i;
  });
  flush(lines.length);
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative links that leave the repository or name a missing file or heading. */
export function brokenLinks(file: string, text: string): string[] {
  const found: string[] = [];
  prose(text).forEach((line, i) => {
    for (const m of withoutCode(line).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const absolute = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), path);
      const inside = relative(ROOT, absolute);
      if (inside.startsWith('..')) {
        found.push(`${file}:${i + 1}: ${target} is outside the repository`);
        continue;
      }
      if (!existsSync(absolute)) {
        found.push(`${file}:${i + 1}: ${target} does not exist`);
        continue;
      }
      if (anchor && statSync(absolute).isFile() && absolute.endsWith('.md') && !anchorsOf(readFileSync(absolute, 'utf8')).has(anchor)) {
        found.push(`${file}:${i + 1}: ${target} names no heading of ${inside}`);
      }
    }
  });
  return found;
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

test('README.md and docs/ never refer to the contract or house documents outside the repository', () => {
  assert.deepEqual(USER_DOCUMENTS.flatMap((f) => outsideReferences(f, read(f))), []);
});

test('every relative link of README.md and docs/ resolves inside the repository', () => {
  assert.deepEqual(USER_DOCUMENTS.flatMap((f) => brokenLinks(f, read(f))), []);
});

test('docs/ holds no dated run log (runs and their figures are in bench/HISTORY.md)', () => {
  assert.deepEqual(markdownUnder('docs').flatMap((f) => datedRunLogs(f, read(f))), []);
});

test('README.md stays within 300 lines', () => {
  const lines = read('README.md').split('\n').length - 1;
  assert.ok(lines <= 300, `README.md has ${lines} lines (at most 300)`);
});

test('the checks find what they are for', () => {
  // Outside references, in the forms they took before.
  assert.equal(outsideReferences('x.md', 'See [the contract](../shared/API.md).').length, 2);
  assert.equal(outsideReferences('x.md', 'Where SPEC.md and DESIGN.md are silent').length, 1);
  assert.equal(outsideReferences('x.md', 'API.md section 13, first part').length, 2);
  assert.equal(outsideReferences('x.md', 'the SPEC 2.5 fields; (API 7a)').length, 1);
  assert.equal(outsideReferences('x.md', 'the guards of section 7a').length, 1);
  assert.deepEqual(outsideReferences('x.md', 'RFC 8628 section 3.5 and RFC 7591 section 3.2.1; GRAPHQL_INTROSPECTION'), []);
  assert.deepEqual(outsideReferences('x.md', 'the `date-time` format outlined in section 5.6 of the RFC 3339 profile'), []);
  // Dated run logs: a dated heading, a dated paragraph with a figure; not a date alone, not a
  // figure alone, not a date in code.
  assert.equal(datedRunLogs('x.md', '## 29 November, 18:53–20:41: the warm-up\n\nText.\n').length, 1);
  assert.equal(datedRunLogs('x.md', 'Measured on 26 November: the flood peaked at\n+159 MiB.\n').length, 1);
  assert.equal(datedRunLogs('x.md', '- Full run (2026-11-29): card hit 0.88.\n').length, 1);
  assert.deepEqual(datedRunLogs('x.md', 'Held for 30 days.\n\nOn 2 December the key rotates.\n'), []);
  assert.deepEqual(datedRunLogs('x.md', '```sh\ncurl -d \'{"starts_at":"2026-12-01T22:00:00Z"}\' # 10 ms\n```\n'), []);
  assert.deepEqual(datedRunLogs('x.md', 'The check time reads `27 Nov 2026, 06:20:53 UTC`; a timeout after 2 s.\n'), []);
  // Links: outside the repository, missing, or to a missing heading.
  assert.equal(brokenLinks('docs/x.md', '[a](../../shared/API.md)').length, 1);
  assert.equal(brokenLinks('docs/x.md', '[a](nowhere.md)').length, 1);
  assert.equal(brokenLinks('docs/x.md', '[a](api.md#no-such-heading)').length, 1);
  assert.deepEqual(brokenLinks('docs/x.md', '[a](api.md#errors) [b](../bench/HISTORY.md) [c](https://example.com/x)'), []);
});

test('the public API reference (the OpenAPI document, the GraphQL schema) never refers to the contract or house documents', async () => {
  const { schema } = await import('../../src/adapters/graphql/schema.js');
  const { buildOpenApiDocument } = await import('../../src/adapters/rest/openapi.js');
  const { restRoutes } = await import('../../src/adapters/rest/table.js');
  const { printSchema } = await import('graphql');
  const doc = buildOpenApiDocument(schema, restRoutes, { serverUrl: 'http://localhost:4000', zone: 'tunnels.localhost', serviceName: 'Tunnel Service', version: '0.0.0' });
  assert.deepEqual(outsideReferences('/openapi.json', JSON.stringify(doc, null, 1)), []);
  assert.deepEqual(outsideReferences('the GraphQL schema', printSchema(schema)), []);
  assert.deepEqual(outsideReferences('graphql/schema.graphql', read('graphql/schema.graphql')), []);
});
