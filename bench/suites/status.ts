// Status hot path: cached GET /status on the zone host against a bare node:http server answering
// the same bytes and headers, measured in the same run. The broker is a tiny health endpoint in
// this process (probed once per 10 s), the api probe hits the server's own /healthz.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alternate, compare, getWithHost, httpTarget, startBareHttp, startServer, ROUNDS, type BenchResult } from '../lib.js';

const ZONE = 'status.bench.localhost';

export default async function status(): Promise<BenchResult> {
  const broker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  const brokerUrl = `http://127.0.0.1:${(broker.address() as AddressInfo).port}/healthz`;

  const server = await startServer({ ZONE, BROKER_HEALTH_URL: brokerUrl });
  const sample = await getWithHost(server.url, '/status', ZONE);
  if (sample.status !== 200) throw new Error(`GET /status answered ${sample.status}: ${sample.body}`);
  // Every header the server sends but the per-connection ones node adds to both (Date, Connection,
  // Keep-Alive) and Content-Length, which the baseline computes.
  const copied = ['content-type', 'cache-control', 'vary', 'x-content-type-options'];
  const extra = Object.keys(sample.headers).filter((h) => ![...copied, 'date', 'connection', 'keep-alive', 'content-length'].includes(h));
  if (extra.length > 0) throw new Error(`/status sends headers the baseline does not: ${extra.join(', ')}`);
  const headers = Object.fromEntries(copied.map((h) => [h, String(sample.headers[h] ?? '')]));

  const bare = await startBareHttp(200, headers, sample.body);
  const [baseRuns, serverRuns] = await alternate([
    httpTarget(bare.pid, { url: bare.url, path: '/status', expectStatus: 200 }),
    httpTarget(server.pid, { url: server.url, path: '/status', headers: { host: ZONE }, expectStatus: 200 }),
  ]);
  await bare.stop();
  const rss = server.rssMiB();
  await server.stop();
  broker.close();
  const compared = compare(baseRuns!, serverRuns!);

  return {
    rows: [{ name: 'GET /status (zone host, cached roll-up)', baselineName: 'bare node:http, same bytes', compared, floor: 0.85 }],
    notes: [
      `status: ${Buffer.byteLength(sample.body)}-byte JSON body; server RSS after the run ${rss.toFixed(0)} MiB; ` +
        `errors ${compared.value.errors}, unexpected statuses ${compared.value.unexpected} (baseline ${compared.baseline.errors}/${compared.baseline.unexpected}); ` +
        `the background refresher renews the roll-up every 10 s during the run (one probe of broker and api each); medians of ${ROUNDS} alternating rounds (baseline, server).`,
    ],
  };
}
