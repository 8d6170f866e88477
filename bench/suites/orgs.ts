// Teams (API.md section 18): listing an organization's 1,000 tunnels (REST GET
// /api/orgs/<slug>/tunnels, the largest list an organization has), against the same member's
// personal GET /api/tunnels of 5 tunnels on the same server, in alternating rounds. Target: at
// most 5 ms of server CPU per listing. Also the member's cached session check (GET /api/account)
// with and without organizations: a membership must not add work to it (the session check reads
// no organization), so the two agree within noise.
import { alternate, api, compare, cpuText, httpTarget, startServer, verifyFromOutbox, ROUNDS, type BenchResult } from '../lib.js';

const PASSWORD = 'bench password 123';
const TUNNELS = 1000;
/** Tunnels created at once while setting up. */
const SETUP_PARALLEL = 8;
const TARGET_US = 5000;

async function signedIn(base: string, dataDir: string, prefix: string): Promise<string> {
  const email = `${prefix}-${Date.now().toString(36)}@example.com`;
  await api(base, 'POST', '/auth/signup', { email, password: PASSWORD });
  await verifyFromOutbox(base, dataDir);
  return ((await api(base, 'POST', '/auth/login', { email, password: PASSWORD })) as { token: string }).token;
}

export default async function orgs(): Promise<BenchResult> {
  const notes: string[] = [];
  const server = await startServer({ SIGNUP_RATE_LIMIT: '50' });
  const member = await signedIn(server.url, server.dataDir, 'bench-org');
  const loner = await signedIn(server.url, server.dataDir, 'bench-loner');
  const slug = `bench-${Date.now().toString(36)}`;
  await api(server.url, 'POST', '/api/orgs', { slug, name: 'Bench Org' }, member);
  // A second and third organization: the member belongs to several, as a member of a team would.
  for (const extra of ['a', 'b']) await api(server.url, 'POST', '/api/orgs', { slug: `${slug}-${extra}`, name: 'Other' }, member);
  for (let i = 0; i < TUNNELS; i += SETUP_PARALLEL) {
    await Promise.all(
      Array.from({ length: Math.min(SETUP_PARALLEL, TUNNELS - i) }, (_, j) => api(server.url, 'POST', `/api/orgs/${slug}/tunnels`, { subdomain: `t${i + j}` }, member)),
    );
  }
  for (let i = 0; i < 5; i++) await api(server.url, 'POST', '/api/tunnels', { subdomain: `mine${i}` }, member);
  const listed = (await api(server.url, 'GET', `/api/orgs/${slug}/tunnels`, undefined, member)) as { tunnels: unknown[] };
  if (listed.tunnels.length !== TUNNELS) throw new Error(`the organization lists ${listed.tunnels.length} tunnels, not ${TUNNELS}`);

  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const [personalRuns, orgRuns] = await alternate([
    httpTarget(server.pid, { url: server.url, path: '/api/tunnels', headers: auth(member), expectStatus: 200 }),
    httpTarget(server.pid, { url: server.url, path: `/api/orgs/${slug}/tunnels`, headers: auth(member), expectStatus: 200 }),
  ]);
  const [lonerRuns, memberRuns] = await alternate([
    httpTarget(server.pid, { url: server.url, path: '/api/account', headers: auth(loner), expectStatus: 200 }),
    httpTarget(server.pid, { url: server.url, path: '/api/account', headers: auth(member), expectStatus: 200 }),
  ]);
  await server.stop();

  const list = compare(personalRuns!, orgRuns!);
  const session = compare(lonerRuns!, memberRuns!);
  for (const [name, c] of [['org tunnels', list], ['session check', session]] as const) {
    if (c.value.errors || c.value.unexpected) notes.push(`${name}: ${c.value.errors} errors, ${c.value.unexpected} unexpected statuses`);
  }
  const us = list.value.cpuUsPerReq;
  notes.push(
    `GET /api/orgs/<slug>/tunnels with ${TUNNELS} tunnels: ${cpuText(us)} of server CPU per listing (target ≤ ${cpuText(TARGET_US)}: ` +
      `${us <= TARGET_US ? 'met' : '**not met**'}); the personal list of 5: ${cpuText(list.baseline.cpuUsPerReq)}`,
  );
  notes.push(
    `cached session check (GET /api/account) of a member of 3 organizations: ${cpuText(session.value.cpuUsPerReq)}, ` +
      `of an account in none: ${cpuText(session.baseline.cpuUsPerReq)} (${session.cpuRatio.toFixed(2)}; the check reads no organization)`,
  );
  notes.push(`orgs: medians of ${ROUNDS} alternating rounds`);
  return {
    rows: [
      { name: `GET /api/orgs/<slug>/tunnels (${TUNNELS} tunnels)`, baselineName: 'GET /api/tunnels (5 tunnels)', compared: list },
      { name: 'GET /api/account, member of 3 organizations', baselineName: 'the same, member of none', compared: session, floor: 0.9 },
    ],
    notes,
  };
}
