// Work that runs after the reply (forgot-password's lookup and email, notices that must not delay
// an answer): its failure is logged, since nobody else would hear of it, and shutdown waits for
// what is still running before it closes the database and the cache under it.
import type { Logger } from 'pino';
import { withTimeout } from './timeout.js';

export interface Background {
  /**
   * Starts `work` on the event loop's next turn, detached from the caller, so that the reply of the
   * request that asked for it is written first; `what` names it in the log if it fails.
   */
  run(what: string, work: () => Promise<void>): void;
}

export class BackgroundWork implements Background {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  run(what: string, work: () => Promise<void>): void {
    // Not a microtask: those run before the reply the caller is still finishing (a failed
    // sign-in's activity row would otherwise be written ahead of its 401, and an existing
    // account's answer would take longer than an unknown address's).
    const task: Promise<void> = new Promise<void>((turn) => setImmediate(turn))
      .then(work)
      .catch((err: unknown) => this.logger.error({ err: (err as Error).message, what }, 'background work failed'))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  get pending(): number {
    return this.running.size;
  }

  /** Waits for the work still running (and what it starts meanwhile), at most `timeoutMs`. */
  async drain(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.running.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await withTimeout(Promise.all(this.running), left, () => new Error('drain timed out')).catch(() => undefined);
    }
    if (this.running.size > 0) this.logger.warn({ pending: this.running.size }, 'background work still running at shutdown');
  }
}
