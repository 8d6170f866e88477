// Instants as text, both ways, on the lists' hot path: PostgreSQL's UTC text into a Date, and a
// Date into its ISO 8601 string, by arithmetic. A list of 100 sessions carries 200 of each, and
// the library paths (node-postgres's regular-expression parser, V8's toISOString, a call into
// the runtime per date) are a large share of such a list's CPU (ADR 21). The results are the
// same to the millisecond; anything outside the common form (another zone, BC, infinity; a year
// before 1970 or after 9999 when printing) goes to the general path.

const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The two digits at `at` as a number, or -1 when either is not a digit. */
function two(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * PostgreSQL's text of an instant in UTC: `2026-11-28 03:10:54.123456+00` (timestamptz, as a
 * session whose TimeZone is UTC prints it; `zoned`) or `2026-11-28 03:10:54.123456` (timestamp).
 * The fraction has 0–6 digits and is cut to milliseconds, as Date's parser does. Null for any
 * other form, which the caller parses the general way.
 */
export function parseUtcText(text: string, zoned: boolean): Date | null {
  const end = zoned ? text.length - 3 : text.length;
  if (zoned && (text.charCodeAt(end) !== 43 /* + */ || text.charCodeAt(end + 1) !== 48 || text.charCodeAt(end + 2) !== 48)) return null;
  if (end < 19 || end > 26 || end === 20) return null;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return null;
  const century = two(text, 0);
  const yearOfCentury = two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  const hour = two(text, 11);
  const minute = two(text, 14);
  const second = two(text, 17);
  // -1 (not two digits) fails every test here.
  if (century < 0 || yearOfCentury < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return null;
  }
  let ms = 0;
  if (end > 19) {
    if (text.charCodeAt(19) !== 46 /* . */) return null;
    for (let i = 20; i < end; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return null;
      if (i < 23) ms = ms * 10 + d;
    }
    // One or two digits: tenths or hundredths.
    if (end === 21) ms *= 100;
    else if (end === 22) ms *= 10;
  }
  const year = century * 100 + yearOfCentury;
  return new Date(daysFromCivil(year, month, day) * DAY_MS + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms);
}

const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
/** `HH:MM:` for each minute of a day, and `.mmmZ` for each millisecond: few pieces to join. */
const CLOCK = Array.from({ length: 1440 }, (_, i) => `${TWO[Math.floor(i / 60)]}:${TWO[i % 60]}:`);
const MILLIS = Array.from({ length: 1000 }, (_, i) => `.${String(i).padStart(3, '0')}Z`);
/** 10000-01-01T00:00:00.000Z: from there on toISOString prints a six-digit, signed year. */
const YEAR_10000 = 253_402_300_800_000;
/** `YYYY-MM-DDT` of recent days (a list's dates fall on few), bounded. */
const dayTexts = new Map<number, string>();
const DAY_TEXTS_MAX = 1024;

function dayText(days: number): string {
  let text = dayTexts.get(days);
  if (text === undefined) {
    if (dayTexts.size >= DAY_TEXTS_MAX) dayTexts.clear();
    text = new Date(days * DAY_MS).toISOString().slice(0, 11);
    dayTexts.set(days, text);
  }
  return text;
}

/** `date.toISOString()`, the same string; an invalid Date throws as toISOString does. */
export function isoString(date: Date): string {
  const t = date.getTime();
  if (!(t >= 0 && t < YEAR_10000)) return date.toISOString();
  const days = Math.floor(t / DAY_MS);
  let rest = t - days * DAY_MS;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return dayText(days) + CLOCK[minutes]! + TWO[seconds]! + MILLIS[rest - seconds * 1000]!;
}
