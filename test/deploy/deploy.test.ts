// The deployment files, checked offline: every Kubernetes object of the kustomize base against
// the Kubernetes schemas (kubernetes-models), the references between them, the ConfigMap and
// Secret against the server's own configuration parser, the Dockerfile's stages, the compose
// `scale` profile and the HAProxy configuration (haproxy -c when HAProxy is installed).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { parse, parseAllDocuments } from 'yaml';
import { startFlags } from '../../bench/start-flags.js';
import { loadConfig } from '../../src/infra/config.js';
import { needsPrograms, which } from '../support/programs.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BASE = join(ROOT, 'deploy', 'kubernetes', 'base');
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are arbitrary YAML, checked field by field
type Obj = any;

const MODELS: Record<string, new (o: Obj) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

function objects(): Obj[] {
  const k = parse(readFileSync(join(BASE, 'kustomization.yaml'), 'utf8'));
  assert.equal(k.kind, 'Kustomization');
  return (k.resources as string[]).flatMap((file) =>
    parseAllDocuments(readFileSync(join(BASE, file), 'utf8')).map((d) => {
      assert.equal(d.errors.length, 0, `${file}: ${d.errors.join('; ')}`);
      return d.toJS();
    }),
  );
}

const find = (kind: string): Obj => {
  const o = objects().find((x) => x.kind === kind);
  assert.ok(o, `no ${kind} in the base`);
  return o;
};

test('every object of the kustomize base is valid against the Kubernetes schemas', () => {
  const all = objects();
  const kinds = all.map((o) => o.kind).sort();
  assert.deepEqual(kinds, ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Ingress', 'Job', 'PodDisruptionBudget', 'Secret', 'Service']);
  for (const o of all) {
    const Model = MODELS[`${o.apiVersion}/${o.kind}`];
    assert.ok(Model, `unexpected ${o.apiVersion} ${o.kind}`);
    assert.doesNotThrow(() => new Model(o).validate(), `${o.kind} ${o.metadata?.name}`);
  }
  // The validator is strict where it matters (types): a broken copy fails.
  const broken = structuredClone(find('Deployment'));
  broken.spec.replicas = 'three';
  assert.throws(() => new Deployment(broken).validate(), /replicas must be integer/);
});

test('the Deployment: probes, drain, resources, a locked-down security context', () => {
  const d = find('Deployment');
  const pod = d.spec.template.spec;
  const c = pod.containers[0];
  assert.deepEqual(d.spec.selector.matchLabels, Object.fromEntries(Object.entries(d.spec.template.metadata.labels).filter(([k]) => k in d.spec.selector.matchLabels)));
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  assert.equal(c.livenessProbe.httpGet.path, '/healthz');
  assert.ok(c.ports.some((p: Obj) => p.name === c.readinessProbe.httpGet.port && p.containerPort === 4000));
  assert.ok(c.lifecycle.preStop, 'preStop drain delay');
  assert.ok(pod.terminationGracePeriodSeconds > 15, 'room for preStop and the 10 s drain');
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory);
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.notEqual(pod.securityContext.runAsUser, 0);
  assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  assert.equal(c.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
  // The only writable place is DATA_DIR's volume.
  const dataDir = find('ConfigMap').data.DATA_DIR as string;
  assert.ok(c.volumeMounts.some((m: Obj) => dataDir.startsWith(m.mountPath)), 'DATA_DIR is on a mounted volume');
  assert.deepEqual(
    c.envFrom.map((e: Obj) => e.configMapRef?.name ?? e.secretRef?.name),
    [find('ConfigMap').metadata.name, find('Secret').metadata.name],
  );
});

test('Service, Ingress, HPA, PDB and the migration Job point at what exists', () => {
  const d = find('Deployment');
  const labels = d.spec.template.metadata.labels;
  const matches = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
  const svc = find('Service');
  assert.ok(matches(svc.spec.selector));
  assert.equal(svc.spec.ports[0].targetPort, 'http');
  const ing = find('Ingress');
  const hosts = ing.spec.rules.map((r: Obj) => r.host);
  const config = find('ConfigMap').data;
  assert.ok(hosts.includes(new URL(config.BASE_URL).hostname), 'the API host');
  assert.ok(hosts.includes(config.ZONE), 'the zone apex (/status)');
  assert.ok(hosts.includes(`*.${config.ZONE}`), 'every tunnel host (server cards)');
  for (const r of ing.spec.rules) assert.equal(r.http.paths[0].backend.service.name, svc.metadata.name);
  const tlsHosts = ing.spec.tls.flatMap((t: Obj) => t.hosts);
  for (const h of hosts) assert.ok(tlsHosts.includes(h), `TLS for ${h}`);
  const hpa = find('HorizontalPodAutoscaler');
  assert.equal(hpa.spec.scaleTargetRef.kind, 'Deployment');
  assert.equal(hpa.spec.scaleTargetRef.name, d.metadata.name);
  assert.ok(hpa.spec.minReplicas >= 2);
  assert.ok(matches(find('PodDisruptionBudget').spec.selector.matchLabels));
  const job = find('Job');
  const jc = job.spec.template.spec.containers[0];
  assert.deepEqual(jc.command, ['node', 'dist/migrate.js']);
  assert.ok(existsSync(join(ROOT, 'src', 'migrate.ts')), 'dist/migrate.js is built from src/migrate.ts');
  assert.equal(jc.image, d.spec.template.spec.containers[0].image, 'the release image');
  assert.equal(jc.securityContext.readOnlyRootFilesystem, true);
});

/** What the Secret's comments say to generate (openssl rand -hex 32). */
const generated = { INTERNAL_API_TOKEN: 'a3'.repeat(16) + '9f1c'.repeat(8), METRICS_TOKEN: '7e'.repeat(16) + '0b5d'.repeat(8) };

test('the Secret says how to generate each secret', () => {
  const text = read('deploy', 'kubernetes', 'base', 'secret.yaml');
  for (const name of ['INTERNAL_API_TOKEN', 'METRICS_TOKEN']) assert.match(text, new RegExp(`--from-literal=${name}="\\$\\(openssl rand -hex 32\\)"`), name);
  assert.match(text, /--from-literal=ENCRYPTION_KEY="\$\(openssl rand -base64 32\)"/);
});

test('the ConfigMap and Secret name only variables the server knows, and it accepts them', () => {
  const known = new Set([...read('src', 'infra', 'config.ts').matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]));
  const env = { ...find('ConfigMap').data, ...find('Secret').stringData };
  for (const k of Object.keys(env)) assert.ok(known.has(k), `${k} is not a variable of src/infra/config.ts`);
  const key = { ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
  // A placeholder left in the Secret stops start-up, naming the variable (API.md section 7a).
  for (const name of ['INTERNAL_API_TOKEN', 'METRICS_TOKEN']) {
    assert.throws(() => loadConfig({ ...env, ...key, ...generated, [name]: env[name] }), (e: Error) => e.message.startsWith(`${name} must be at least 32`), name);
  }
  const config = loadConfig({ ...env, ...key, ...generated });
  assert.equal(config.production, true);
  assert.equal(config.redis?.mode, 'cluster');
  assert.ok(config.databaseDirectUrl && config.databaseDirectUrl !== config.databaseUrl, 'migrations bypass PgBouncer');
});

test('the Dockerfile: a build stage, production dependencies only, non-root, HEALTHCHECK, SIGTERM', () => {
  const text = read('Dockerfile').replace(/\\\n/g, ' ');
  const stages = text.split(/^FROM /m).slice(1).map((s) => ({ name: /^\S+ AS (\S+)/.exec(s)?.[1], body: s }));
  assert.deepEqual(stages.map((s) => s.name), ['build', 'prod-deps', 'runtime']);
  const [build, deps, runtime] = stages as [(typeof stages)[0], (typeof stages)[0], (typeof stages)[0]];
  assert.match(build.body, /RUN npm ci\b/);
  assert.match(build.body, /RUN npm run build/);
  assert.match(deps.body, /RUN npm ci --omit=dev/);
  assert.match(runtime.body, /COPY --from=prod-deps \S* ?\/app\/node_modules/);
  assert.match(runtime.body, /COPY --from=build \S* ?\/app\/dist/);
  assert.doesNotMatch(runtime.body, /npm (ci|install)|COPY[^\n]* src\b|devDependencies/, 'no dev tools or sources in the final stage');
  const user = /^USER (\S+)/m.exec(runtime.body)?.[1];
  assert.ok(user && !['root', '0'].includes(user), `runs as ${user}`);
  const health = /^HEALTHCHECK (.*)$/m.exec(runtime.body)?.[1] ?? '';
  assert.match(health, /CMD \["node", "-e", .*\/healthz/);
  assert.doesNotMatch(health, /curl|wget/);
  assert.match(runtime.body, /^STOPSIGNAL SIGTERM/m);
  assert.match(runtime.body, /^CMD \["node", [^\]]*"dist\/main\.js"\]/m);
  // The image starts node with the flags of `npm start` (the benchmarks measure those).
  const imageFlags = JSON.parse(/^CMD (\[.*\])$/m.exec(runtime.body)![1]!) as string[];
  assert.deepEqual(imageFlags.slice(1, -1), startFlags(join(ROOT, 'package.json')));
  // The server (src/server.ts, loaded by main.ts) drains on SIGTERM (closes the server, then the pools).
  assert.match(read('src', 'server.ts'), /process\.on\('SIGTERM'/);
  const ignore = read('.dockerignore').split('\n');
  for (const p of ['.git', 'node_modules', 'dist', 'test', '.env', '.data']) assert.ok(ignore.includes(p), `.dockerignore: ${p}`);
});

test('docker compose: the scale profile runs three replicas behind HAProxy on PgBouncer', () => {
  const compose = parse(read('docker-compose.yml'));
  const scale = Object.entries(compose.services as Record<string, Obj>).filter(([, s]) => s.profiles?.includes('scale'));
  const byName = Object.fromEntries(scale);
  assert.deepEqual(Object.keys(byName).sort(), ['app', 'lb', 'migrate', 'pgbouncer']);
  assert.equal(byName.app.deploy.replicas, 3);
  assert.equal(byName.app.build, '.');
  assert.match(byName.app.environment.DATABASE_URL, /@pgbouncer:/);
  assert.match(byName.app.environment.DATABASE_DIRECT_URL, /@postgres:/);
  assert.deepEqual(byName.migrate.command, ['node', 'dist/migrate.js']);
  assert.equal(byName.app.depends_on.migrate.condition, 'service_completed_successfully');
  assert.equal(byName.pgbouncer.environment.POOL_MODE, 'transaction');
  assert.match(byName.lb.image, /^haproxy:/);
  assert.ok(byName.lb.volumes.some((v: string) => v.startsWith('./deploy/haproxy/haproxy.cfg:')));
  // The default profile (the local services) is unchanged: no app there.
  assert.ok(!compose.services.postgres.profiles && !compose.services.redis.profiles);
});

test('haproxy.cfg: round robin over three app replicas, checked on /healthz', () => {
  const cfg = read('deploy', 'haproxy', 'haproxy.cfg');
  assert.match(cfg, /^\s*balance roundrobin$/m);
  assert.match(cfg, /^\s*option httpchk GET \/healthz$/m);
  assert.match(cfg, /^\s*server-template app 3 app:4000 check\b/m);
  assert.match(cfg, /^\s*option forwardfor$/m, 'X-Forwarded-For for TRUST_PROXY=1');
});

test('haproxy -c accepts haproxy.cfg', needsPrograms(['haproxy'], 'the configuration check of the real program'), () => {
  const r = spawnSync(which('haproxy')!, ['-c', '-f', join(ROOT, 'deploy', 'haproxy', 'haproxy.cfg')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr + r.stdout);
});
