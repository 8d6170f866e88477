// `npm run lint` step: prints the OpenAPI document from the route table, exactly as the server
// serves it, and runs Redocly's linter on it (rules in redocly.yaml). Offline: nothing is fetched.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { schema } from '../src/adapters/graphql/schema.js';
import { buildOpenApiDocument } from '../src/adapters/rest/openapi.js';
import { restRoutes } from '../src/adapters/rest/table.js';

const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
try {
  const file = join(dir, 'openapi.json');
  const doc = buildOpenApiDocument(schema, restRoutes, { serverUrl: 'http://localhost:3000', zone: 'tunnels.localhost', serviceName: 'Tunnel service', version: '0.0.0' });
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const cli = new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url).pathname;
  const config = new URL('../redocly.yaml', import.meta.url).pathname;
  const run = spawnSync(process.execPath, [cli, 'lint', file, '--config', config, '--format', 'stylish'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
