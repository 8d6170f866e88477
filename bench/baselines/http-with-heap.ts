// The bare node:http baseline (baselines/http.ts, run as it is) in a process that first builds and
// keeps a heap of the server's size (BASELINE_HEAP_MIB, default 70: many small objects, as a
// loaded module graph is). Used only by bench/reducer-step.ts, to show what V8's memory reducer
// does to node's own HTTP path in a process whose heap it acts on; no floor is measured against it.
const heapBytes = Number(process.env.BASELINE_HEAP_MIB ?? 70) * 2 ** 20;

/** Exported, so the module keeps it reachable for the process's whole life. */
export const kept: { id: number; name: string; pair: number[]; inner: { id: number } }[] = [];
while (process.memoryUsage().heapUsed < heapBytes) {
  for (let i = 0; i < 10_000; i++) kept.push({ id: i, name: `entry ${i}`, pair: [i, i + 1], inner: { id: i } });
}

await import('./http.js');
