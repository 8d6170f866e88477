// How the API host answers what no route handled: every error becomes problem+json through the
// one classification (src/adapters/errors.ts); unknown paths answer 404 problem+json (a browser
// asking for a page may get one instead: http/browser-not-found.ts); every
// answer is timed by route pattern, and 5xx answers are logged (with email-link tokens redacted).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound, PROBLEMS } from '../../domain/errors.js';
import { redactLinks } from '../../infra/mail/transport.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import { classifyError, malformedUrl } from '../errors.js';
import { sendProblem } from '../problem.js';

/** Fastify's `frameworkErrors` option: router-level refusals (malformed URL, over-long parameter). */
export const frameworkErrors = (err: FastifyError, _req: unknown, reply: Parameters<typeof sendProblem>[0]) => {
  sendProblem(reply, malformedUrl(err.statusCode ?? 400));
};

export interface ErrorHandlerOptions {
  /** BASE_URL: every problem's `type` is BASE_URL/problems/<slug>. */
  baseUrl: string;
  /** A browser's answer to an unknown path (a page, a redirect), or undefined for the problem+json 404. */
  browserNotFound?: (req: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

export function registerErrorHandlers(app: FastifyInstance, metrics: Pick<Metrics, 'httpDuration'>, opts: ErrorHandlerOptions): void {
  app.decorate('problemBaseUrl', opts.baseUrl);
  app.setErrorHandler((err, req, reply) => {
    if (reply.raw.destroyed) {
      // The client hung up before its answer was written (e.g. Fastify's stream of Yoga's answer
      // ends with "Premature close"): nobody is left to answer, and no server fault to report.
      req.log.info({ err: (err as Error).message, url: redactLinks(req.url) }, 'client closed the connection before the answer');
      return reply;
    }
    const { error, internal } = classifyError(err);
    if (internal) req.log.error({ err: (err as Error).message, url: redactLinks(req.url) }, 'unhandled error');
    return sendProblem(reply, error);
  });

  app.setNotFoundHandler((req, reply) => opts.browserNotFound?.(req, reply) ?? sendProblem(reply, notFound(PROBLEMS.notFound, 'No such endpoint.')));

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    if (reply.statusCode >= 500) {
      req.log.error({ method: req.method, url: redactLinks(req.url), status: reply.statusCode }, 'request failed');
    }
  });
}
