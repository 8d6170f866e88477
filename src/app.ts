// buildApp(deps): the HTTP server with host routing and every adapter mounted. Never listens.
//
//   node:http ──host──┬─ ZONE            → zone handler (/status, /healthz)        [raw, no Fastify]
//                     ├─ <label>.ZONE    → card handler                            [raw, no Fastify]
//                     ├─ card path, other host → card handler for custom domains   [raw]
//                     └─ any other host  → Fastify: /graphql, REST shim, pages, /healthz, /metrics
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import cookie from '@fastify/cookie';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createCardHandlers } from './adapters/http/card-host.js';
import { sameSecret } from './infra/crypto/tokens.js';
import type { Deps } from './deps.js';
import { AppError } from './domain/errors.js';
import type { GraphQLContext } from './adapters/graphql/context.js';
import { classifyError } from './adapters/graphql/errors.js';
import { schema } from './adapters/graphql/schema.js';
import { createGraphQLServer } from './adapters/graphql/yoga.js';
import { assertSameSiteWrite, registerCors } from './adapters/http/cors.js';
import { CARD_PATHS, classifyHost, hostnameOf, pathOf } from './adapters/http/hosts.js';
import { sendProblem, writeProblem } from './adapters/http/problem.js';
import type { RawHandler } from './adapters/http/raw.js';
import { authenticate, clearSessionCookie, clientInfo, readCredential, setSessionCookie } from './adapters/http/session-auth.js';
import { redactLinks } from './infra/mail/transport.js';
import { registerLinkPages } from './adapters/pages/link-pages.js';
import { mountRest } from './adapters/rest/mount.js';
import { restRoutes } from './adapters/rest/table.js';
import { createZoneHandler, registerStatusRoutes } from './adapters/http/zone-host.js';
import { registerOAuthRoutes } from './adapters/http/routes/oauth.js';
import { registerTunnelRoutes } from './adapters/http/routes/internal-tunnels.js';
import type { Viewer } from './domain/context.js';

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer | null;
    credentialVia: 'cookie' | 'bearer' | null;
  }
}

export const BODY_LIMIT = 64 * 1024;

function guard(handler: RawHandler, deps: Deps): RawHandler {
  return (req, res, hostname) => {
    try {
      const done = handler(req, res, hostname);
      if (done instanceof Promise) done.catch((err: unknown) => fail(err, res, deps));
    } catch (err) {
      fail(err, res, deps);
    }
  };
}

function fail(err: unknown, res: ServerResponse, deps: Deps): void {
  deps.logger.error({ err: (err as Error).message }, 'raw handler failed');
  if (!res.headersSent) writeProblem(res, { code: 'INTERNAL', status: 500, message: 'Internal error.' });
  else res.destroy();
}

export interface BuiltApp {
  fastify: FastifyInstance;
  /** Resolves to the bound address, e.g. http://127.0.0.1:4000. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export async function buildApp(deps: Deps): Promise<BuiltApp> {
  const { config } = deps;
  const zone = guard(createZoneHandler(deps), deps);
  const cards = createCardHandlers(deps);
  const tunnelHost = guard(cards.tunnelHost, deps);
  const customDomain = guard(cards.customDomain, deps);

  const fastify = Fastify({
    // pino's Logger type is wider than Fastify's base logger interface; the instance is the same.
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    // Per-request lines are left to the onResponse hook below (errors only): cheaper and no raw URLs.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    // Router-level refusals (malformed URL, over-long path parameter) answer problem+json too.
    frameworkErrors: (err, _req, reply) => {
      sendProblem(reply, { code: 'BAD_REQUEST', status: err.statusCode ?? 400, message: 'The request URL is malformed or too long.' });
    },
    serverFactory: (handler) =>
      createServer((req: IncomingMessage, res: ServerResponse) => {
        const hostname = hostnameOf(req);
        const kind = classifyHost(hostname, config.zone);
        if (kind === 'zone') return zone(req, res, hostname);
        if (kind === 'tunnel') return tunnelHost(req, res, hostname);
        if (hostname !== config.apiHostname && CARD_PATHS.has(pathOf(req.url))) return customDomain(req, res, hostname);
        handler(req, res);
      }),
  });

  // JSON for every body (legacy clients send odd content types); empty bodies are "no body".
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new AppError('BAD_REQUEST', 'The request body is not valid JSON.'), undefined);
    }
  });

  await fastify.register(cookie);
  registerCors(fastify, config);

  fastify.decorateRequest('viewer', null);
  fastify.decorateRequest('credentialVia', null);
  fastify.addHook('preHandler', async (req) => {
    const credential = readCredential(req);
    req.credentialVia = credential?.via ?? null;
    assertSameSiteWrite(req, config, req.credentialVia);
    req.viewer = await authenticate(deps, credential);
  });

  fastify.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    deps.metrics.httpDuration.observe(
      { method: req.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (reply.statusCode >= 500) {
      req.log.error({ method: req.method, url: redactLinks(req.url), status: reply.statusCode }, 'request failed');
    }
  });

  fastify.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof AppError) return sendProblem(reply, classifyError(err));
    if (err.statusCode === 413) {
      return sendProblem(reply, { code: 'BAD_REQUEST', status: 413, message: 'The request body is larger than 64 KiB.' });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendProblem(reply, { code: 'BAD_REQUEST', status: 400, message: 'The request is malformed.' });
    }
    req.log.error({ err: err.message, url: redactLinks(req.url) }, 'unhandled error');
    return sendProblem(reply, classifyError(err));
  });

  fastify.setNotFoundHandler((_req, reply) =>
    sendProblem(reply, { code: 'NOT_FOUND', status: 404, message: 'No such endpoint.' }),
  );

  const contextOf = (req: FastifyRequest, reply: FastifyReply): GraphQLContext => ({
    deps,
    viewer: req.viewer,
    client: clientInfo(req),
    setSessionCookie: (token, expiresAt) => setSessionCookie(reply, config, token, expiresAt),
    clearSessionCookie: () => clearSessionCookie(reply, config),
  });

  const yoga = createGraphQLServer({
    production: config.production,
    logger: deps.logger,
    context: ({ req, reply }) => contextOf(req, reply),
  });
  fastify.route({
    url: yoga.graphqlEndpoint,
    method: ['GET', 'POST'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });

  mountRest(fastify, schema, restRoutes, contextOf);
  registerLinkPages(fastify, config.serviceName);
  registerOAuthRoutes(fastify, deps);
  registerTunnelRoutes(fastify, deps);
  registerStatusRoutes(fastify, deps);

  fastify.get('/healthz', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('ok'));
  fastify.get('/metrics', async (req, reply) => {
    if (config.metricsToken && !sameSecret(req.headers.authorization ?? '', `Bearer ${config.metricsToken}`)) {
      return sendProblem(reply, { code: 'UNAUTHENTICATED', status: 401, message: 'A metrics token is required.' });
    }
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  await fastify.ready();

  return {
    fastify,
    async listen(port = config.port, host = config.host) {
      return fastify.listen({ port, host });
    },
    async close() {
      await fastify.close();
    },
  };
}
