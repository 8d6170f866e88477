// Status hot path: cached GET /status on the zone host against a bare node:http server answering
// the same bytes and headers, measured in the same run. The broker is a tiny health endpoint in
// this process (probed once per 10 s), the api probe hits the server's own /healthz.
// statusSuite() also measures the badge (status-badge.ts): same setup, another path.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alternate, compare, getWithHost, httpTarget, startBareHttp, startServer, ROUNDS, type BenchResult } from '../lib.js';

const ZONE = 'status.bench.localhost';

/** Headers node adds to both answers per connection, and Content-Length, which the baseline computes. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

export interface StatusRoute {
  path: string;
  /** Names the body in the notes, after its size ('JSON body'). */
  body: string;
  label: string;
  /** Why the sample answer is not the one to measure, or null. */
  check?: (sample: { headers: Record<string, string>; body: string }) => string | null;
}

export async function statusSuite(route: StatusRoute): Promise<BenchResult> {
  const { path } = route;
  const broker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  const brokerUrl = `http://127.0.0.1:${(broker.address() as AddressInfo).port}/healthz`;

  const server = await startServer({ ZONE, BROKER_HEALTH_URL: brokerUrl });
  const sample = await getWithHost(server.url, path, ZONE);
  // The baseline sends every header the server sends.
  const headers = Object.fromEntries(
    Object.entries(sample.headers)
      .filter(([k]) => !PER_CONNECTION.has(k))
      .map(([k, v]) => [k, String(v)]),
  );
  const wrong = sample.status !== 200 ? `answered ${sample.status}` : (route.check?.({ headers, body: sample.body }) ?? null);
  if (wrong) throw new Error(`GET ${path} ${wrong}: ${sample.body.slice(0, 200)}`);

  const bare = await startBareHttp(200, headers, sample.body);
  const [baseRuns, serverRuns] = await alternate([
    httpTarget(bare.pid, { url: bare.url, path, expectStatus: 200 }),
    httpTarget(server.pid, { url: server.url, path, headers: { host: ZONE }, expectStatus: 200 }),
  ]);
  await bare.stop();
  const rss = server.rssMiB();
  await server.stop();
  broker.close();
  const compared = compare(baseRuns!, serverRuns!);

  return {
    rows: [{ name: `GET ${path} (zone host, cached roll-up)`, baselineName: 'bare node:http, same bytes', compared, floor: 0.8 }],
    notes: [
      `${route.label}: ${Buffer.byteLength(sample.body)}-byte ${route.body}; server RSS after the run ${rss.toFixed(0)} MiB; ` +
        `errors ${compared.value.errors}, unexpected statuses ${compared.value.unexpected} (baseline ${compared.baseline.errors}/${compared.baseline.unexpected}); ` +
        `the background refresher renews the roll-up every 10 s during the run (one probe of broker and api each); medians of ${ROUNDS} alternating rounds (baseline, server).`,
    ],
  };
}

export default function status(): Promise<BenchResult> {
  return statusSuite({ path: '/status', label: 'status', body: 'JSON body' });
}
