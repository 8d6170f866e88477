// `npm run bench:reducer-step`: V8's memory-reducer step (ADR 8) on bare node:http, without the
// server. Two bare node:http processes answer the same bytes: one as the suites' baseline, one that
// first builds a heap of the server's size (baselines/http-with-heap.ts). They are loaded in turn,
// in slices as the suites load a server and its baseline, so each idles while the other is
// measured. Every 8 turns it prints the CPU per request of each, their ratio (bare ÷ with heap, as
// the suites' ratios) and the resident size of the one with the heap: V8 gives memory back in its
// memory-reducing collections, so a drop in that column dates one.
//
// STEP_SECONDS (default 240) bounds the run; STEP_NODE_FLAGS adds node flags to both processes
// (for instance --no-memory-reducer, the control). Not part of `npm run bench`: no floor applies.
import { httpTarget, spawnNode, type Measurement, type Target } from './lib.js';

const SECONDS = Number(process.env.STEP_SECONDS ?? 240);
const SLICE_SECONDS = 0.75;
const TURNS_PER_LINE = 8;
const flags = (process.env.STEP_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const answer = {
  BASELINE_STATUS: '404',
  BASELINE_HEADERS: JSON.stringify({ 'content-type': 'application/problem+json' }),
  BASELINE_BODY: JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'No tunnel is published at this host.' }),
};

const bare = await spawnNode('bench/baselines/http.ts', answer, '/', flags);
const heavy = await spawnNode('bench/baselines/http-with-heap.ts', answer, '/', flags);
const targets: [string, Target][] = [
  ['bare', httpTarget(bare.pid, { url: bare.url, path: '/', expectStatus: 404 })],
  ['with heap', httpTarget(heavy.pid, { url: heavy.url, path: '/', expectStatus: 404 })],
];

const cpuPerRequest = (m: Pick<Measurement, 'cpuUsPerReq'>) => m.cpuUsPerReq.toFixed(2);
process.stdout.write(
  `node ${process.version}${flags.length ? ` ${flags.join(' ')}` : ''}; resident size of the process with the heap at start: ${heavy.rssMiB().toFixed(0)} MiB\n` +
    '| s | bare µs/req | with heap µs/req | bare ÷ with heap | with heap RSS MiB |\n|---|---|---|---|---|\n',
);
const started = performance.now();
try {
  let turn = 0;
  const sums = targets.map(() => ({ cpu: 0, requests: 0, unexpected: 0 }));
  while (performance.now() - started < SECONDS * 1000) {
    // A B, B A, …: a steady drift on the machine falls on both alike.
    const order = turn % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      const s = await targets[k]![1].slice!(SLICE_SECONDS);
      sums[k]!.cpu += s.cpuSeconds;
      sums[k]!.requests += s.requests;
      sums[k]!.unexpected += s.unexpected + s.errors;
    }
    if (++turn % TURNS_PER_LINE !== 0) continue;
    const [b, h] = sums.map((x) => ({ cpuUsPerReq: (x.cpu * 1e6) / Math.max(1, x.requests) }));
    if (sums.some((x) => x.unexpected > 0)) throw new Error('unexpected answers or errors');
    process.stdout.write(
      `| ${((performance.now() - started) / 1000).toFixed(0)} | ${cpuPerRequest(b!)} | ${cpuPerRequest(h!)} | ` +
        `${(b!.cpuUsPerReq / h!.cpuUsPerReq).toFixed(2)} | ${heavy.rssMiB().toFixed(0)} |\n`,
    );
    for (const x of sums) Object.assign(x, { cpu: 0, requests: 0, unexpected: 0 });
  }
} finally {
  await bare.stop();
  await heavy.stop();
}
