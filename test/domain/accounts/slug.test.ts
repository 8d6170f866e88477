// Slug rules and the slug derived from an email (SPEC section 8), as pure functions; the HTTP side
// (signup, rename, 409) is in slug-rename.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/domain/errors.js';
import { RESERVED_SLUGS, assertValidSlug, slugBaseFromEmail, slugCandidates, slugProblem } from '../../../src/domain/accounts/slug.js';

test('slugProblem names the first rule a slug breaks, and null for a valid one', () => {
  const cases: [string, ReturnType<typeof slugProblem>][] = [
    ['abc', null],
    ['a'.repeat(28), null],
    ['0-9', null],
    ['my-slug-2', null],
    ['ab', 'length'],
    ['', 'length'],
    ['a'.repeat(29), 'length'],
    ['Upper', 'characters'],
    ['under_score', 'characters'],
    ['dot.ted', 'characters'],
    ['spa ce', 'characters'],
    ['ümlaut', 'characters'],
    ['-leading', 'hyphens'],
    ['trailing-', 'hyphens'],
    ['dou--ble', 'hyphens'],
    ['admin', 'reserved'],
    ['www', 'reserved'],
    ['no-reply', 'reserved'],
  ];
  for (const [slug, problem] of cases) assert.equal(slugProblem(slug), problem, JSON.stringify(slug));
});

test('assertValidSlug throws BAD_REQUEST for a non-string or an invalid slug and accepts a valid one', () => {
  const isBadRequest = (err: unknown) => err instanceof AppError && err.code === 'BAD_REQUEST' && err.status === 400;
  for (const bad of [42, null, undefined, ['abc'], { slug: 'abc' }, 'ab', 'Upper', 'dou--ble', 'api']) {
    assert.throws(() => assertValidSlug(bad), isBadRequest, JSON.stringify(bad));
  }
  assert.throws(() => assertValidSlug('api'), /reserved/);
  assert.throws(() => assertValidSlug('ab'), /3 to 28/);
  assert.doesNotThrow(() => assertValidSlug('fine-slug'));
});

test('the base slug is the local part before any +tag, lowercased, with runs of other characters as one hyphen', () => {
  assert.equal(slugBaseFromEmail('Jane.Doe+news@example.com'), 'jane-doe');
  assert.equal(slugBaseFromEmail('john_smith@example.com'), 'john-smith');
  assert.equal(slugBaseFromEmail('x__y..z@example.com'), 'x-y-z');
  assert.equal(slugBaseFromEmail("o'brien+tag@example.com"), 'o-brien');
  assert.equal(slugBaseFromEmail('--x--y--@example.com'), 'x-y', 'no hyphen at either end');
  assert.equal(slugBaseFromEmail('12345@example.com'), '12345');
});

test('the base slug is cut to 20 characters, never ending in a hyphen', () => {
  assert.equal(slugBaseFromEmail(`${'a'.repeat(30)}@example.com`), 'a'.repeat(20));
  assert.equal(slugBaseFromEmail('abcdefghijklmnopqrs.tuv@example.com'), 'abcdefghijklmnopqrs');
});

test('a base slug that would be too short gets a "user" prefix; a reserved one a "-user" suffix', () => {
  assert.equal(slugBaseFromEmail('a@example.com'), 'user-a');
  assert.equal(slugBaseFromEmail('ab@example.com'), 'user-ab');
  assert.equal(slugBaseFromEmail('@example.com'), 'user');
  assert.equal(slugBaseFromEmail('_.-_@example.com'), 'user');
  assert.equal(slugBaseFromEmail('+tag@example.com'), 'user');
  assert.equal(slugBaseFromEmail('abc@example.com'), 'abc');
  assert.equal(slugBaseFromEmail('admin@example.com'), 'admin-user');
  assert.equal(slugBaseFromEmail('Support+x@example.com'), 'support-user');
});

test('every base slug follows the rules, whatever the email', () => {
  const locals = ['a', 'ab', ...RESERVED_SLUGS, '--x--y--', '_.-_', 'long'.repeat(14), 'müller', 'ÅNGSTRÖM', '日本語', 'a!b#c$d%e&f*g=h?i^j{k}l~m', '-', ''];
  for (const local of locals) {
    const base = slugBaseFromEmail(`${local}@example.com`);
    assert.equal(slugProblem(base), null, `${JSON.stringify(local)} → ${JSON.stringify(base)}`);
  }
});

test('slug candidates: the base first, then the base with a short random hex suffix, each valid', () => {
  const candidates = slugCandidates('twin@example.com');
  assert.equal(candidates.next().value, 'twin');
  const suffixed = Array.from({ length: 50 }, () => candidates.next().value as string);
  for (const slug of suffixed) {
    assert.match(slug, /^twin-[0-9a-f]{4,5}$/);
    assert.equal(slugProblem(slug), null, slug);
  }
  assert.ok(new Set(suffixed).size > 40, 'the suffixes differ');
  // The longest base (20 characters) with the longest suffix still fits in 28.
  const long = slugCandidates(`${'z'.repeat(40)}@example.com`);
  long.next();
  for (let i = 0; i < 20; i++) assert.equal(slugProblem(long.next().value as string), null);
});
