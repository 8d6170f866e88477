// Handlers that answer before Fastify: the card hosts and the zone host are hot, public and tiny,
// so they are served straight off node:http (see server.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { internalError } from '../../domain/errors.js';
import { writeProblem } from '../problem.js';

export type RawHandler = (req: IncomingMessage, res: ServerResponse, hostname: string) => void | Promise<void>;

/** A raw handler that cannot crash the process: a fault answers 500 problem+json (or drops the socket mid-answer). */
/** `baseUrl` is BASE_URL, under which problem types live. */
export function guardRaw(handler: RawHandler, logger: Logger, baseUrl: string): RawHandler {
  const fail = (err: unknown, res: ServerResponse) => {
    logger.error({ err: (err as Error).message }, 'raw handler failed');
    if (!res.headersSent) writeProblem(res, internalError(), baseUrl);
    else res.destroy();
  };
  return (req, res, hostname) => {
    try {
      const done = handler(req, res, hostname);
      if (done instanceof Promise) done.catch((err: unknown) => fail(err, res));
    } catch (err) {
      fail(err, res);
    }
  };
}
