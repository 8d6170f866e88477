// The server: config → deps → app → listen; graceful shutdown on SIGTERM/SIGINT (started by main.ts).
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './infra/config.js';
import { createDeps } from './deps.js';
import { startTracing } from './infra/observability/tracing.js';
import { startWorkers } from './workers.js';
import { missingStartSettings } from './infra/runtime-flags.js';
import { closeInOrder } from './infra/close-in-order.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const tracing = await startTracing(config);
  const deps = await createDeps(config);
  const app = await buildApp(deps);
  const address = await app.listen();
  const workers = startWorkers(deps);
  deps.logger.info(
    {
      address,
      database: deps.database.embedded ? 'embedded (PGlite)' : 'postgresql',
      cache: deps.cache.kind,
      mail: config.smtpUrl ? 'smtp' : 'outbox folder',
    },
    `listening on ${address}`,
  );
  for (const advice of missingStartSettings(process.env)) deps.logger.warn(advice);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    deps.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    const closed = await closeInOrder(
      [
        ['http', () => app.close()],
        ['workers', () => workers.stop()],
        ['dependencies', () => deps.close()],
        ['tracing', () => tracing?.shutdown()],
      ],
      (step, err) => deps.logger.error({ step, err: (err as Error).message }, 'shutdown step failed'),
    );
    process.exit(closed ? 0 : 1);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`start-up failed: ${(err as Error).message}\n`);
  process.exit(1);
});
