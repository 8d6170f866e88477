// The zone host: /healthz for now; the status roll-up arrives with its own issue.
import { writeProblem } from '../http/problem.js';
import { pathOf } from '../http/hosts.js';
import type { RawHandler } from '../http/raw.js';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

export function createZoneHandler(_deps: Deps): RawHandler {
  return (req, res) => {
    if (pathOf(req.url) === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 2 });
      res.end(req.method === 'HEAD' ? undefined : 'ok');
      return;
    }
    writeProblem(res, { code: 'NOT_FOUND', status: 404, message: 'Not found.' });
  };
}

/** Status-area routes on the API host (/readyz, and the like); filled by the status work. */
export function registerStatusRoutes(_app: FastifyInstance, _deps: Deps): void {}
