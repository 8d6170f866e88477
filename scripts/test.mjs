// Runs every test/**/*.test.ts file with node's test runner (Node 20 cannot glob .ts itself).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.test.ts') ? [join(dir, d.name)] : [],
  );
const only = process.argv.slice(2);
const files = only.length > 0 ? only : walk('test').sort();
const result = spawnSync(
  process.execPath,
  // --test-force-exit: a file whose tests are done ends even if a failed test leaked a handle (a
  // client still retrying a stopped Redis node), so a failure fails the run instead of hanging it;
  // --test-timeout bounds any single test (10 minutes, far above the slowest).
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-force-exit', '--test-timeout=600000', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
