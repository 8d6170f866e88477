// Status history (API.md section 11): every refresh adds one check per component to a counter row
// for its UTC day (kept 90 days) and for its minute (kept 24 hours). GET /status/history, the page's
// strip and its uptimes are computed from those rows on the injected clock:
//   - "24h": the minute rows of the last 1440 minutes (the current one included);
//   - "7d", "30d", "90d": the day rows of the last 7, 30, 90 UTC days (today included);
//   - days: the last 90 UTC days, oldest first, each with its checks, failures and uptime.
// An uptime is a percentage with two decimals, rounded down (a single failure never shows 100),
// and null where nothing was measured.
import type { Db } from '../store.js';
import { addChecks, deleteHistoryBefore, readHistoryRows, type Counts, type DayRow } from './store.js';
import { COMPONENTS, isUnconfigured, type ComponentName, type Rollup } from './rollup.js';

export const HISTORY_DAYS = 90;
const DAY_MS = 24 * 3600 * 1000;
const MINUTE_MS = 60_000;
const MINUTES_PER_DAY = 1440;

export type UptimeWindow = '24h' | '7d' | '30d' | '90d';

export interface DayEntry {
  /** YYYY-MM-DD (UTC). */
  date: string;
  uptime: number | null;
  checks: number;
  failures: number;
}

export interface ComponentHistory {
  name: ComponentName;
  uptime: Record<UptimeWindow, number | null>;
  days: DayEntry[];
}

export interface History {
  components: ComponentHistory[];
}

/** (checks − failures) / checks as a percentage, two decimals, rounded down; null without checks. */
export function uptimeOf(checks: number, failures: number): number | null {
  if (checks <= 0) return null;
  return Math.floor(((checks - failures) * 10_000) / checks) / 100;
}

const startOfDay = (ms: number): number => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
const startOfMinute = (ms: number): number => ms - (((ms % MINUTE_MS) + MINUTE_MS) % MINUTE_MS);

/** The oldest day kept and shown: today minus 89 days (UTC midnight). */
export const firstDay = (now: Date): Date => new Date(startOfDay(now.getTime()) - (HISTORY_DAYS - 1) * DAY_MS);
/** The oldest minute counted in the 24 h uptime. */
export const firstMinute = (now: Date): Date => new Date(startOfMinute(now.getTime()) - (MINUTES_PER_DAY - 1) * MINUTE_MS);

/** The history as the API shows it, from the day rows since firstDay and the minute sums since firstMinute. */
export function summarizeHistory(now: Date, days: readonly DayRow[], lastDay: readonly Counts[]): History {
  const today = startOfDay(now.getTime());
  return {
    components: COMPONENTS.map((name) => {
      const byDay = new Map<number, DayRow>();
      for (const r of days) if (r.component === name) byDay.set(r.day.getTime(), r);
      const entries: DayEntry[] = [];
      for (let i = HISTORY_DAYS - 1; i >= 0; i--) {
        const day = today - i * DAY_MS;
        const row = byDay.get(day);
        const checks = row?.checks ?? 0;
        const failures = row?.failures ?? 0;
        entries.push({ date: new Date(day).toISOString().slice(0, 10), uptime: uptimeOf(checks, failures), checks, failures });
      }
      const over = (n: number): number | null => {
        let checks = 0;
        let failures = 0;
        for (const d of entries.slice(-n)) {
          checks += d.checks;
          failures += d.failures;
        }
        return uptimeOf(checks, failures);
      };
      const recent = lastDay.find((r) => r.component === name);
      return {
        name,
        uptime: { '24h': uptimeOf(recent?.checks ?? 0, recent?.failures ?? 0), '7d': over(7), '30d': over(30), '90d': over(90) },
        days: entries,
      };
    }),
  };
}

/**
 * Adds one check per probed component of the roll-up to its day and minute rows (one statement).
 * An unconfigured component was not measured: its history stays "no data".
 */
export async function recordChecks(db: Db, rollup: Rollup): Promise<void> {
  const at = Date.parse(rollup.checked_at);
  await addChecks(
    db,
    new Date(startOfDay(at)),
    new Date(startOfMinute(at)),
    rollup.components.filter((c) => !isUnconfigured(c)).map((c) => ({ component: c.name, failed: !c.ok })),
  );
}

/** Deletes day rows older than 90 days and minute rows older than 24 hours. */
export function purgeHistory(db: Db, now: Date): Promise<{ days: number; minutes: number }> {
  return deleteHistoryBefore(db, firstDay(now), firstMinute(now));
}

/** Reads the rows the history needs and summarizes them. */
export async function loadHistory(db: Db, now: Date): Promise<History> {
  const { days, lastDay } = await readHistoryRows(db, firstDay(now), firstMinute(now), now);
  return summarizeHistory(now, days, lastDay);
}
