// The lists' instant parsing and printing (src/infra/instant.ts) give exactly what V8's Date parser
// and toISOString give, over the whole range they take and at every calendar edge, and hand
// everything else back to the general path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoString, parseUtcText } from '../../src/infra/instant.js';

/** A deterministic spread of instants from 1970 to 9999 (xorshift, no Math.random). */
function* instants(count: number): Generator<number> {
  let x = 0x9e3779b9;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const y = (x >>> 0) / 2 ** 32;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const z = (x >>> 0) / 2 ** 32;
    yield Math.floor((y + z / 2 ** 20) * 253402300799999);
  }
}

const EDGES = [
  '1970-01-01T00:00:00.000Z',
  '1970-12-31T23:59:59.999Z',
  '1972-02-29T12:00:00.001Z',
  '1999-12-31T23:59:59.999Z',
  '2000-02-29T00:00:00.000Z',
  '2000-03-01T00:00:00.000Z',
  '2024-02-29T23:59:59.999Z',
  '2026-11-28T03:10:54.123Z',
  '2038-01-19T03:14:08.000Z',
  '2100-02-28T23:59:59.999Z',
  '2100-03-01T00:00:00.000Z',
  '2400-02-29T10:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
];

test('isoString is toISOString: calendar edges and 200,000 instants from 1970 to 9999', () => {
  for (const edge of EDGES) assert.equal(isoString(new Date(edge)), edge);
  for (const t of instants(200_000)) {
    const date = new Date(t);
    if (isoString(date) !== date.toISOString()) assert.equal(isoString(date), date.toISOString(), `at ${t}`);
  }
});

test('isoString outside 1970–9999 and on an invalid Date does what toISOString does', () => {
  for (const text of ['1969-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000Z', '+010000-01-01T00:00:00.000Z', '-000001-06-01T00:00:00.000Z']) {
    assert.equal(isoString(new Date(text)), text);
  }
  assert.throws(() => isoString(new Date(Number.NaN)), RangeError);
});

/** PostgreSQL's text of an instant: `YYYY-MM-DD HH:MM:SS[.f…]` with trailing zeros of the fraction cut. */
function pgText(t: number, micros: number): string {
  const iso = new Date(t).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}`;
}

test('parseUtcText reads timestamptz and timestamp text as V8 reads the ISO form, the fraction cut to milliseconds', () => {
  let micros = 0;
  for (const t of instants(100_000)) {
    micros = (micros + 337) % 1000;
    const text = pgText(t, micros);
    const expected = new Date(`${text.replace(' ', 'T')}Z`).getTime();
    const zoned = parseUtcText(`${text}+00`, true)?.getTime();
    const plain = parseUtcText(text, false)?.getTime();
    if (zoned !== expected || plain !== expected) assert.deepEqual([zoned, plain], [expected, expected], text);
  }
  assert.equal(parseUtcText('2026-11-28 03:10:54+00', true)?.toISOString(), '2026-11-28T03:10:54.000Z');
  assert.equal(parseUtcText('2026-11-28 03:10:54.1+00', true)?.toISOString(), '2026-11-28T03:10:54.100Z');
  assert.equal(parseUtcText('2026-11-28 03:10:54.12+00', true)?.toISOString(), '2026-11-28T03:10:54.120Z');
  assert.equal(parseUtcText('2026-11-28 03:10:54.999999+00', true)?.toISOString(), '2026-11-28T03:10:54.999Z');
  assert.equal(parseUtcText('0100-03-01 00:00:00', false)?.toISOString(), '0100-03-01T00:00:00.000Z');
  assert.equal(parseUtcText('0044-03-15 12:00:00+00', true)?.toISOString(), '0044-03-15T12:00:00.000Z');
});

test('parseUtcText hands every other form back (null) for the general parser', () => {
  for (const text of [
    '2026-11-28 03:10:54+01',
    '2026-11-28 03:10:54+05:30',
    '2026-11-28 03:10:54.123-00',
    '2026-11-28 03:10:54 BC+00',
    'infinity',
    '-infinity',
    '12026-11-28 03:10:54+00',
    '2026-11-28T03:10:54+00',
    '2026-11-28 03:10:54.+00',
    '2026-11-28 03:10:54.1234567+00',
    '2026-13-28 03:10:54+00',
    '2026-11-28 24:00:00+00',
    '2026-1a-28 03:10:54+00',
    '2026-11-28 03:10:5x+00',
    '2026-11-28 03:10:54.12a+00',
    '',
  ]) {
    assert.equal(parseUtcText(text, true), null, text);
  }
  assert.equal(parseUtcText('2026-11-28 03:10:54+00', false), null);
  assert.equal(parseUtcText('2026-11-28 03:10:54', true), null);
});
