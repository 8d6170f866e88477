// Status hot path: cached GET /status on the zone host against a bare node:http server answering
// the same bytes and headers, measured in the same run. The broker is a tiny health endpoint in
// this process (probed once per 10 s), the api probe hits the server's own /healthz.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getWithHost, measure, startBareHttp, startServer, type BenchResult, type Load, type Measurement } from '../lib.js';

const ZONE = 'status.bench.localhost';

/** CPU time (user + system, ms) a process has used so far, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
}

interface Target {
  load: Load;
  pid: number;
}

/**
 * Alternates the two targets (A B A B) so drifting background load hits both alike, and averages.
 * Also returns each process's CPU per request (µs), which shared-machine noise disturbs less than rps.
 */
async function alternate(a: Target, b: Target, rounds = 2): Promise<[Measurement, Measurement, number, number]> {
  const runs: Record<'a' | 'b', Measurement[]> = { a: [], b: [] };
  const cpu = { a: 0, b: 0 };
  const requests = { a: 0, b: 0 };
  for (let i = 0; i < rounds; i++) {
    for (const [key, t] of [['a', a], ['b', b]] as const) {
      const before = cpuMs(t.pid);
      const m = await measure(t.load);
      cpu[key] += cpuMs(t.pid) - before;
      // measure() warms up for 1 s before the timed run; both are counted in the CPU figure.
      requests[key] += m.rps * ((t.load.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 8)) + 1);
      runs[key].push(m);
    }
  }
  return [mean(runs.a), mean(runs.b), (cpu.a * 1000) / requests.a, (cpu.b * 1000) / requests.b];
}

function mean(ms: Measurement[]): Measurement {
  const avg = (f: (m: Measurement) => number) => ms.reduce((sum, m) => sum + f(m), 0) / ms.length;
  return { rps: avg((m) => m.rps), p99: avg((m) => m.p99), errors: avg((m) => m.errors), unexpected: avg((m) => m.unexpected) };
}

export default async function status(): Promise<BenchResult> {
  const broker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  const brokerUrl = `http://127.0.0.1:${(broker.address() as AddressInfo).port}/healthz`;

  const server = await startServer({ ZONE, BROKER_HEALTH_URL: brokerUrl });
  const sample = await getWithHost(server.url, '/status', ZONE);
  if (sample.status !== 200) throw new Error(`GET /status answered ${sample.status}: ${sample.body}`);
  const copied = ['content-type', 'cache-control', 'vary', 'x-content-type-options'];
  const headers = Object.fromEntries(copied.map((h) => [h, String(sample.headers[h] ?? '')]));

  const bare = await startBareHttp(200, headers, sample.body);
  const [baseline, value, bareCpu, serverCpu] = await alternate(
    { pid: bare.pid, load: { url: bare.url, path: '/status', expectStatus: 200 } },
    { pid: server.pid, load: { url: server.url, path: '/status', headers: { host: ZONE }, expectStatus: 200 } },
  );
  await bare.stop();
  const rss = server.rssMiB();
  await server.stop();
  broker.close();

  return {
    rows: [
      {
        name: 'GET /status (zone host, cached roll-up)',
        value,
        baselineName: 'bare node:http, same bytes',
        baseline,
        target: '>= 0.8',
      },
    ],
    notes: [
      `status: ${sample.body.length}-byte JSON body; server RSS after the run ${rss.toFixed(0)} MiB; ` +
        `errors ${value.errors}, unexpected statuses ${value.unexpected} (baseline ${baseline.errors}/${baseline.unexpected}); ` +
        'the roll-up refreshes every 10 s during the run (one probe of broker and api each); ' +
        'figures are the mean of two alternating rounds (baseline, server, baseline, server); ' +
        `CPU per request (approx.): server ${serverCpu.toFixed(1)} µs, bare baseline ${bareCpu.toFixed(1)} µs.`,
    ],
  };
}
