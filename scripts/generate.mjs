// `prisma generate` without any download: the client generator needs no native engine, but the CLI
// looks for a schema engine binary; a placeholder path keeps it from fetching one.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const env = { ...process.env, PATH: `${join(process.cwd(), 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const dir = join(tmpdir(), 'prisma-placeholder');
  const placeholder = join(dir, 'schema-engine');
  if (!existsSync(placeholder)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(placeholder, '#!/bin/sh\necho "schema engine placeholder: use npm run migrate" >&2\nexit 1\n');
    chmodSync(placeholder, 0o755);
  }
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}
const result = spawnSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
