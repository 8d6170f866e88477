// `npm run bench:reducer-step`: V8's memory-reducer step (ADR 8) on bare node:http, without the
// server. Two bare node:http processes answer the same bytes: one as the suites' baseline, one that
// first builds a heap of the server's size (baselines/http-with-heap.ts). After one uncounted pass,
// they are loaded in turn in the suites' slices (WINDOW_SECONDS / SLICES), so each idles while the
// other is measured. Every 8 turns it prints the seconds since both were started, the CPU per
// request of each, their ratio (bare ÷ with heap, as the suites' ratios) and the resident size of
// each: V8 gives memory back in its memory-reducing collections, so a drop in a process's column
// dates one of its own.
//
// STEP_SECONDS (default 240) bounds the run; STEP_NODE_FLAGS adds node flags to both processes
// (--no-memory-reducer for the control, --trace-gc to date every collection). Output goes to
// stdout only. Not part of `npm run bench`: no floor applies.
import { performance } from 'node:perf_hooks';
import { SLICES, WINDOW_SECONDS, httpTarget, spawnNode, type Proc } from './lib.js';

const SECONDS = Number(process.env.STEP_SECONDS ?? 240);
if (!Number.isFinite(SECONDS) || SECONDS <= 0) throw new Error(`STEP_SECONDS must be a positive number of seconds, not ${process.env.STEP_SECONDS}`);
const TURNS_PER_LINE = 8;
const flags = (process.env.STEP_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const answer = {
  BASELINE_STATUS: '404',
  BASELINE_HEADERS: JSON.stringify({ 'content-type': 'application/problem+json' }),
  BASELINE_BODY: JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'No tunnel is published at this host.' }),
};

const processes: Proc[] = [];
const spawnedAt = performance.now();
try {
  const bare = await spawnNode('bench/baselines/http.ts', answer, '/', flags);
  processes.push(bare);
  const heavy = await spawnNode('bench/baselines/http-with-heap.ts', answer, '/', flags);
  processes.push(heavy);
  const names = ['bare', 'with heap'];
  const targets = [bare, heavy].map((p) => httpTarget(p.pid, { url: p.url, path: '/', expectStatus: 404 }));
  for (const t of targets) await t.run();

  process.stdout.write(
    `node ${process.version}${flags.length ? ` ${flags.join(' ')}` : ''}; slices of ${WINDOW_SECONDS / SLICES} s\n` +
      '| s | bare µs/req | with heap µs/req | bare ÷ with heap | bare RSS MiB | with heap RSS MiB |\n|---|---|---|---|---|---|\n',
  );
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    const sums = targets.map(() => ({ cpu: 0, requests: 0, wrong: 0 }));
    for (let turn = 0; turn < TURNS_PER_LINE; turn++) {
      // A B, B A, …: a steady drift on the machine falls on both alike.
      for (const k of turn % 2 === 0 ? [0, 1] : [1, 0]) {
        const s = await targets[k]!.slice!(WINDOW_SECONDS / SLICES);
        sums[k]!.cpu += s.cpuSeconds;
        sums[k]!.requests += s.requests;
        sums[k]!.wrong += s.unexpected + s.errors;
      }
    }
    sums.forEach((x, k) => {
      if (x.wrong > 0) throw new Error(`${names[k]}: ${x.wrong} of ${x.requests} answers not a 404 or failed`);
    });
    const [b, h] = sums.map((x) => (x.cpu * 1e6) / Math.max(1, x.requests)) as [number, number];
    process.stdout.write(
      `| ${((performance.now() - spawnedAt) / 1000).toFixed(0)} | ${b.toFixed(2)} | ${h.toFixed(2)} | ${(b / h).toFixed(2)} | ` +
        `${bare.rssMiB().toFixed(0)} | ${heavy.rssMiB().toFixed(0)} |\n`,
    );
  }
} finally {
  for (const p of processes) await p.stop();
}
