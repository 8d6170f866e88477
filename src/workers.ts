// Every background job of an instance starts and stops here: the mail and webhook deliveries,
// the retention sweep and the status roll-up's refresher. Each takes care of running on one
// instance at a time where that matters (leases, windows). The parts that requests depend on
// start with what they serve, in app.ts: the card cache's invalidation subscription and the
// authorization server's sweep of its own expired records.
import type { Deps } from './deps.js';
import { startRetention } from './domain/retention/retention.js';
import { startStatusRefresher } from './domain/status/refresher.js';

export interface Workers {
  /** Stops every job and waits for the runs under way; call before Deps.close(). */
  stop(): Promise<void>;
}

export interface WorkerOptions {
  /**
   * The status roll-up refreshed every 10 s without traffic (default on). Tests that drive the
   * refresher's ticks themselves leave it off.
   */
  statusRefresher?: boolean;
}

export function startWorkers(deps: Deps, opts: WorkerOptions = {}): Workers {
  deps.mailWorker.start();
  deps.webhookWorker.start();
  // What is past its time goes: hourly, in bounded batches, one instance at a time (a lease).
  const stopRetention = startRetention({ sql: deps.sql, clock: deps.clock, logger: deps.logger });
  const refresher = opts.statusRefresher === false ? null : startStatusRefresher(deps);
  return {
    async stop() {
      await refresher?.stop();
      await stopRetention();
      await deps.webhookWorker.stop();
      await deps.mailWorker.stop();
    },
  };
}
