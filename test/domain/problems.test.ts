// The problem catalog (src/domain/problems.ts): one entry per kind of problem, each with a stable
// slug, an area, the contract's code and a status that agree, OAuth entries naming their RFC
// `error`; docs/api.md prints it exactly.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { AppError, badRequest, conflict, oauthError, PROBLEMS } from '../../src/domain/errors.js';
import { ERROR_STATUS, PROBLEM_AREAS, PROBLEM_LIST, problemBySlug, problemTypeUri } from '../../src/domain/problems.js';

/** Statuses an entry may have besides its code's own: HTTP's finer answers. */
const FINER_STATUS: Readonly<Record<string, readonly number[]>> = {
  BAD_REQUEST: [405, 413, 414, 415],
  UNAVAILABLE: [500, 502],
};

test('every entry: a kebab-case slug of its own, a known area, a code and a status that agree', () => {
  const slugs = new Set<string>();
  for (const p of PROBLEM_LIST) {
    assert.match(p.slug, /^[a-z0-9]+(-[a-z0-9]+)*$/, p.slug);
    assert.ok(!slugs.has(p.slug), `${p.slug} is used once`);
    slugs.add(p.slug);
    assert.ok((PROBLEM_AREAS as readonly string[]).includes(p.area), `${p.slug}: area ${p.area}`);
    assert.ok(Object.hasOwn(ERROR_STATUS, p.code), `${p.slug}: code ${p.code}`);
    if (p.oauthError) {
      assert.equal(p.area, 'oauth', `${p.slug}: an OAuth error value belongs to the oauth area`);
      assert.ok([400, 401, 429].includes(p.status), `${p.slug}: OAuth errors answer 400, 401 or 429`);
    } else {
      assert.ok(p.status === ERROR_STATUS[p.code] || (FINER_STATUS[p.code] ?? []).includes(p.status), `${p.slug}: ${p.code} is not answered ${p.status}`);
    }
    assert.ok(p.title.length > 0 && p.title.length <= 60, `${p.slug}: a short title`);
    assert.match(p.description, /^[A-Z].*\.$/, `${p.slug}: one sentence`);
    assert.equal(problemBySlug(p.slug), p);
  }
  assert.equal(problemBySlug('about-blank'), undefined);
});

test('an error carries its entry: code and status come from it, the type URI is under BASE_URL', () => {
  const e = conflict(PROBLEMS.slugTaken, 'That slug is already taken.', 'slug');
  assert.equal(e.code, 'CONFLICT');
  assert.equal(e.status, 409);
  assert.equal(e.problem.slug, 'slug-taken');
  assert.equal(problemTypeUri('https://api.example', e.problem), 'https://api.example/problems/slug-taken');
  assert.equal(badRequest(PROBLEMS.bodyTooLarge, 'x').status, 413);
  assert.equal(new AppError(PROBLEMS.malformedUrl, 'x', { status: 431 }).status, 431, 'a framework status is kept');
});

test('OAuth errors are catalog entries too: the entry names the RFC error value', () => {
  const e = oauthError(PROBLEMS.oauthTemporarilyUnavailable, 'Too many.', 30);
  assert.equal(e.problem.oauthError, 'temporarily_unavailable');
  assert.equal(e.status, 429);
  assert.equal(e.extra.retryAfterSeconds, 30);
  assert.equal(oauthError(PROBLEMS.oauthInvalidGrant, 'x').status, 400);
  assert.equal(PROBLEMS.oauthIntrospectionRefused.oauthError, 'invalid_client');
  assert.equal(PROBLEMS.oauthIntrospectionRefused.status, 401);
});

/** The table docs/api.md prints between its problem-types markers. */
function problemTable(): string {
  const rows = PROBLEM_AREAS.flatMap((area) =>
    PROBLEM_LIST.filter((p) => p.area === area).map(
      (p) => `| ${area} | \`${p.slug}\` | ${p.oauthError ? `\`${p.oauthError}\`` : `\`${p.code}\``} | ${p.status} | ${p.title}: ${p.description} |`,
    ),
  );
  return ['| area | type (`/problems/…`) | `code` (OAuth: `error`) | status | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

test('docs/api.md prints the catalog, entry for entry', () => {
  const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const printed = /<!-- problem-types:[^>]*-->\n([\s\S]*?)\n<!-- \/problem-types -->/.exec(doc);
  assert.ok(printed, 'docs/api.md has the problem-types table');
  assert.equal(printed[1], problemTable(), 'regenerate the table of docs/api.md from the catalog: npx tsx scripts/print-problems.ts');
});
