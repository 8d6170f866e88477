// `npm run bench`: runs every suite in bench/suites (or those named on the command line), prints
// one table of ratios against same-run baselines, and writes it to bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { freshCache, prepareBackends } from './backends.js';
import { ROUNDS, TABLE_HEADER, WINDOW_SECONDS, ratioRow, type BenchResult } from './lib.js';

const dir = new URL('./suites/', import.meta.url);
const wanted = process.argv.slice(2);
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, '')))
  .sort();

// The server runs as `npm start` does: compiled with scripts/build.mjs, on plain node.
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
const cleanup = await prepareBackends();
const lines: string[] = [TABLE_HEADER];
const notes: string[] = [];
const perRound: string[] = [];
try {
  for (const file of suites) {
    process.stderr.write(`\n# suite ${file}\n`);
    await freshCache();
    const mod = (await import(new URL(file, dir).href)) as { default: () => Promise<BenchResult> };
    const result = await mod.default();
    for (const row of result.rows) {
      const line = ratioRow(row);
      lines.push(line);
      process.stderr.write(`${line}\n`);
      perRound.push(`${row.name}: ${row.compared.cpuRatios.map((r) => r.toFixed(2)).join(' ')}`);
    }
    notes.push(...result.notes);
  }
} finally {
  // The run's database is dropped even when a suite fails.
  await cleanup();
}
const backend = process.env.BENCH_DATABASE_URL ? `PostgreSQL${process.env.BENCH_REDIS_URL ? ' + Redis' : ''}` : 'embedded PGlite + memory cache';
notes.push(`backend: ${backend}; ${WINDOW_SECONDS} s per measurement after a 1 s warm-up; ${ROUNDS} alternating rounds (order reversed every other round) after one untimed pass over every target; figures are medians over the rounds, ratios the median of the per-round ratios; CPU per request read from /proc/<pid>/stat (utime + stime) of the server and of the baseline around each window; 2-core machine, load generator on the same machine`);
notes.push(`CPU/req ratio of every round, in order: ${perRound.join('; ')}`);
const out = `${lines.join('\n')}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`;
process.stdout.write(`\n${out}`);
if (wanted.length === 0) {
  writeFileSync(new URL('./RESULTS.md', import.meta.url), `# Latest benchmark run (${new Date().toISOString()})\n\n${out}`);
}
