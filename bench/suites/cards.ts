// Card hot path: cached card hits (the seed's card, the v1 card, the AI Catalog and an oauth
// tunnel's protected resource metadata, all from one cache entry) and
// unknown-host 404s on tunnel hosts, each against a bare node:http server answering the same
// bytes and headers in the same run. Then a flood of
// 100,000 distinct random tunnel hosts, to show the in-process cache stays bounded (RSS).
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import autocannon from 'autocannon';
import { alternate, api, compare, getWithHost, httpTarget, startBareHttp, startServer, ROUNDS, type BenchResult } from '../lib.js';

const ZONE = 'cards.bench.localhost';
const CARD_PATH = '/.well-known/mcp/server-card.json';
const V1_CARD_PATH = '/mcp/server-card';
const CATALOG_PATH = '/.well-known/ai-catalog.json';
const PRM_PATH = '/.well-known/oauth-protected-resource/mcp';
const FLOOD_HOSTS = 100_000;
const PASSWORD = 'bench password 123';

/** Sign up, log in, create a tunnel, make it discoverable and OAuth-protected (API.md section 13). */
async function discoverableHost(base: string): Promise<string> {
  const email = `bench-${Date.now().toString(36)}@example.com`;
  await api(base, 'POST', '/auth/signup', { email, password: PASSWORD });
  const { token } = (await api(base, 'POST', '/auth/login', { email, password: PASSWORD })) as { token: string };
  const tunnel = (await api(base, 'POST', '/api/tunnels', { subdomain: 'bench' }, token)) as { id: string; host: string };
  await api(base, 'PATCH', `/api/tunnels/${tunnel.id}`, { discoverable: true, access: 'oauth' }, token);
  return tunnel.host;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A baseline answering exactly what the server answered (minus per-response headers). */
function sameBytes(sample: { status: number; headers: IncomingHttpHeaders; body: string }) {
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  const headers = Object.fromEntries(
    Object.entries(sample.headers).filter(([k]) => !skip.has(k)).map(([k, v]) => [k, String(v)]),
  );
  return startBareHttp(sample.status, headers, sample.body);
}

/** 100,000 requests, each to a distinct random `<a>--<b>.ZONE` host (all unknown); samples RSS. */
function flood(url: string, rssMiB: () => number): Promise<{ seconds: number; non404: number; peakMiB: number }> {
  let non404 = 0;
  let peakMiB = rssMiB();
  const sampler = setInterval(() => {
    peakMiB = Math.max(peakMiB, rssMiB());
  }, 250);
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: url + CARD_PATH,
        connections: 20,
        amount: FLOOD_HOSTS,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              headers: { ...req.headers, host: `${randomBytes(6).toString('hex')}--${randomBytes(6).toString('hex')}.${ZONE}` },
            }),
          },
        ],
      },
      (err, result) => {
        clearInterval(sampler);
        if (err) return reject(err);
        resolve({ seconds: result.duration, non404, peakMiB: Math.max(peakMiB, rssMiB()) });
      },
    );
    instance.on('response', (_c, status) => {
      if (status !== 404) non404++;
    });
  });
}

export default async function cards(): Promise<BenchResult> {
  const server = await startServer({ ZONE });
  const host = await discoverableHost(server.url);
  const unknownHost = `nobody--no-such-account.${ZONE}`;
  const hit = await getWithHost(server.url, CARD_PATH, host);
  const miss = await getWithHost(server.url, CARD_PATH, unknownHost);
  if (hit.status !== 200 || miss.status !== 404) throw new Error(`card ${hit.status}, unknown host ${miss.status}`);

  // Each answer alternates with its own baseline only, so a server window always neighbours the
  // baseline it is compared with.
  const bareCard = await sameBytes(hit);
  const [cardBase, cardValue] = await alternate([
    httpTarget(bareCard.pid, { url: bareCard.url, path: CARD_PATH, expectStatus: 200 }),
    httpTarget(server.pid, { url: server.url, path: CARD_PATH, headers: { host }, expectStatus: 200 }),
  ]);
  await bareCard.stop();
  const bare404 = await sameBytes(miss);
  const [missBase, missValue] = await alternate([
    httpTarget(bare404.pid, { url: bare404.url, path: CARD_PATH, expectStatus: 404 }),
    httpTarget(server.pid, { url: server.url, path: CARD_PATH, headers: { host: unknownHost }, expectStatus: 404 }),
  ]);
  await bare404.stop();
  const card = compare(cardBase!, cardValue!);
  const notFound = compare(missBase!, missValue!);

  /** One cached document of the card entry against a bare server answering its bytes. */
  const documentHit = async (path: string) => {
    const sample = await getWithHost(server.url, path, host);
    if (sample.status !== 200) throw new Error(`${path}: ${sample.status}`);
    const bare = await sameBytes(sample);
    const [base, value] = await alternate([
      httpTarget(bare.pid, { url: bare.url, path, expectStatus: 200 }),
      httpTarget(server.pid, { url: server.url, path, headers: { host }, expectStatus: 200 }),
    ]);
    await bare.stop();
    return compare(base!, value!);
  };
  const v1 = await documentHit(V1_CARD_PATH);
  const catalog = await documentHit(CATALOG_PATH);
  const prm = await documentHit(PRM_PATH);

  await sleep(2000);
  const rssBefore = server.rssMiB();
  const flooded = await flood(server.url, () => server.rssMiB());
  const rssAfter = server.rssMiB();
  await sleep(3000);
  const rss3s = server.rssMiB();
  // What the flood leaves: V8 keeps the heap it grew until its memory reducer runs, some 10 to
  // 30 s after the allocation stops (measured); 30 s after the flood is what stays.
  await sleep(27_000);
  const rssSettled = server.rssMiB();
  await server.stop();

  const delta = rssSettled - rssBefore;
  const fmt = (d: number) => `${d >= 0 ? '+' : ''}${d.toFixed(1)} MiB`;
  return {
    rows: [
      { name: 'card hit (tunnel host, cached)', baselineName: 'bare node:http, same bytes', compared: card, floor: 0.8 },
      { name: 'card 404 (unknown host, cached negative)', baselineName: 'bare node:http, same bytes', compared: notFound, floor: 0.8 },
      { name: 'v1 card hit (/mcp/server-card, cached)', baselineName: 'bare node:http, same bytes', compared: v1, floor: 0.8 },
      { name: 'AI Catalog hit (/.well-known/ai-catalog.json, cached)', baselineName: 'bare node:http, same bytes', compared: catalog, floor: 0.8 },
      { name: 'protected resource metadata hit (oauth tunnel, cached)', baselineName: 'bare node:http, same bytes', compared: prm, floor: 0.8 },
    ],
    notes: [
      `cards: ${Buffer.byteLength(hit.body)}-byte card, ${Buffer.byteLength(miss.body)}-byte 404; errors ${card.value.errors}/${notFound.value.errors}, ` +
        `unexpected statuses ${card.value.unexpected}/${notFound.value.unexpected}; medians of ${ROUNDS} alternating rounds (baseline, server).`,
      `cards flood: ${FLOOD_HOSTS} distinct random tunnel hosts (each unknown: answered by the known-hosts filter, or looked up on its false positives) in ${flooded.seconds.toFixed(1)} s ` +
        `(${flooded.non404} non-404 answers); server RSS ${rssBefore.toFixed(0)} MiB before; peak during the flood ` +
        `${fmt(flooded.peakMiB - rssBefore)}, right after ${fmt(rssAfter - rssBefore)}, 3 s later ${fmt(rss3s - rssBefore)}, ` +
        `30 s later (what the flood leaves) ${fmt(delta)} (target: within 50 MiB, ${delta <= 50 ? 'met' : 'NOT met'}).`,
    ],
  };
}
