// Status badge hot path: GET /status/badge.svg on the zone host (the badge-maker SVG, rendered
// when the roll-up changes, served as pre-rendered bytes) against a bare node:http server
// answering the same bytes and headers, measured in the same run, beside the cached /status suite.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alternate, compare, getWithHost, httpTarget, startBareHttp, startServer, ROUNDS, type BenchResult } from '../lib.js';

const ZONE = 'status.bench.localhost';
const PATH = '/status/badge.svg';

export default async function statusBadge(): Promise<BenchResult> {
  const broker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  const brokerUrl = `http://127.0.0.1:${(broker.address() as AddressInfo).port}/healthz`;

  const server = await startServer({ ZONE, BROKER_HEALTH_URL: brokerUrl });
  const sample = await getWithHost(server.url, PATH, ZONE);
  if (sample.status !== 200 || !sample.body.startsWith('<svg')) throw new Error(`GET ${PATH} answered ${sample.status}: ${sample.body.slice(0, 200)}`);
  // Every header the server sends but the per-connection ones node adds to both (Date, Connection,
  // Keep-Alive) and Content-Length, which the baseline computes.
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  const headers = Object.fromEntries(
    Object.entries(sample.headers)
      .filter(([k]) => !skip.has(k))
      .map(([k, v]) => [k, String(v)]),
  );
  if (headers['cache-control'] !== 'no-cache') throw new Error(`${PATH}: Cache-Control ${headers['cache-control']}`);

  const bare = await startBareHttp(200, headers, sample.body);
  const [baseRuns, serverRuns] = await alternate([
    httpTarget(bare.pid, { url: bare.url, path: PATH, expectStatus: 200 }),
    httpTarget(server.pid, { url: server.url, path: PATH, headers: { host: ZONE }, expectStatus: 200 }),
  ]);
  await bare.stop();
  const rss = server.rssMiB();
  await server.stop();
  broker.close();
  const compared = compare(baseRuns!, serverRuns!);

  return {
    rows: [{ name: 'GET /status/badge.svg (zone host, cached roll-up)', baselineName: 'bare node:http, same bytes', compared, floor: 0.85 }],
    notes: [
      `status badge: ${Buffer.byteLength(sample.body)}-byte SVG (badge-maker, rendered once per distinct verdict); server RSS after the run ${rss.toFixed(0)} MiB; ` +
        `errors ${compared.value.errors}, unexpected statuses ${compared.value.unexpected} (baseline ${compared.baseline.errors}/${compared.baseline.unexpected}); ` +
        `the background refresher renews the roll-up every 10 s during the run; medians of ${ROUNDS} alternating rounds (baseline, server).`,
    ],
  };
}
