// buildApp(deps): the HTTP server with host routing and every adapter mounted. Never listens.
// Composition only: each adapter gets the narrow dependencies it uses.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import cookie from '@fastify/cookie';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { BODY_LIMIT } from './adapters/errors.js';
import type { GraphQLContext } from './adapters/graphql/context.js';
import { schema } from './adapters/graphql/schema.js';
import { createGraphQLServer } from './adapters/graphql/yoga.js';
import { createCardHandlers } from './adapters/edge/card-host.js';
import { registerCors } from './adapters/api/cors.js';
import { frameworkErrors, registerErrorHandlers } from './adapters/api/error-handlers.js';
import { registerFavicon } from './adapters/edge/favicon.js';
import { registerJsonBody } from './adapters/api/json-body.js';
import { registerGraphQLRoute } from './adapters/api/routes/graphql.js';
import { registerHealthRoutes } from './adapters/api/routes/health.js';
import { registerInternalTunnelRoutes } from './adapters/api/routes/internal-tunnels.js';
import { registerInternalOAuthClientRoutes } from './adapters/api/routes/internal-oauth-clients.js';
import { createMetricsServer, registerMetricsRoute } from './adapters/api/routes/metrics.js';
import { registerProblemRoutes } from './adapters/api/routes/problems.js';
import { registerOAuthRoutes } from './adapters/api/routes/sso.js';
import { registerOAuthServerRoutes } from './adapters/api/routes/authorization-server.js';
import { OAuthServer } from './adapters/authorization-server/server.js';
import { createHostRoutedServer } from './adapters/edge/server.js';
import { clearSessionCookie, clientInfo, registerSessionAuth, setSessionCookie } from './adapters/api/session-auth.js';
import { rawClientIp, trustProxyOption } from './adapters/client-ip.js';
import { createZoneHandler } from './adapters/edge/zone-host.js';
import { registerInternalStatusRoutes } from './adapters/api/routes/internal-status.js';
import { incidentList } from './adapters/edge/status/incident-list.js';
import { browserNotFound } from './adapters/api/browser-not-found.js';
import { LINK_PAGES, registerLinkPages } from './adapters/pages/link-pages.js';
import { CONSOLE_ROUTES, consoleEnabled, registerConsole } from './adapters/console/console.js';
import { registerGraphiQLAssets } from './adapters/console/graphiql.js';
import { registerPasskeysPage } from './adapters/pages/passkeys-page.js';
import { mountRest } from './adapters/rest/mount.js';
import { restRoutes } from './adapters/rest/table.js';
import { registerOpenApiRoute } from './adapters/rest/openapi-route.js';
import { registerApiDocs } from './adapters/console/api-docs.js';
import type { Deps } from './deps.js';
import { wireCardInvalidation } from './domain/cards/invalidation.js';
import { CardResolver } from './domain/cards/resolver.js';
import { describePendingLink } from './domain/sso/pending-link.js';
import { statusService } from './domain/status/service.js';
import { statusViews } from './adapters/edge/status/views.js';
import { zoneOrigin, zonePageUrl } from './adapters/edge/status/zone-url.js';
import { statusFeed } from './adapters/edge/status/feed.js';
import { subscriptionHandler } from './adapters/edge/status/subscriptions.js';
import { confirmSubscription, subscribe, unsubscribe } from './domain/status/subscriptions.js';

/** The API's version in the OpenAPI document: the package's (src/app.ts and dist/main.js both sit one level under it). */
const SERVICE_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** How long start-up waits for the card invalidation subscription (a healthy Redis: milliseconds). */
const SUBSCRIBE_WAIT_MS = 2000;

export interface BuiltApp {
  fastify: FastifyInstance;
  /** The METRICS_PORT listener, when configured (it listens with the app). */
  metricsServer: Server | null;
  /** Every route registered on the API host, as `METHOD /path` (the OpenAPI coverage test reads it). */
  routes: readonly string[];
  /** Resolves to the bound address, e.g. http://127.0.0.1:4000. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export async function buildApp(deps: Deps): Promise<BuiltApp> {
  const { config, logger, metrics } = deps;

  const resolver = new CardResolver(deps);
  // The in-process card layer serves once the invalidation subscription is live: wait for it
  // (bounded, so a Redis that does not answer cannot hold the start-up) while the rest is built.
  const subscribed = wireCardInvalidation(deps, resolver);
  const oauth = await OAuthServer.start(deps);
  const feed = statusFeed(deps, { serviceName: config.serviceName, pageUrl: zonePageUrl(config), feedUrl: `${zoneOrigin(config)}/status/feed.atom` });
  const subscriptions = subscriptionHandler({
    subscribe: (email, client) => subscribe(deps, email, client),
    confirm: (token) => confirmSubscription(deps, token),
    unsubscribe: (token) => unsubscribe(deps, token),
    zoneOrigin: zoneOrigin(config),
    allowedOrigins: config.allowedOrigins,
    clientIp: rawClientIp(config.trustProxy),
    serviceName: config.serviceName,
    baseUrl: config.baseUrl,
  });
  const zoneHost = createZoneHandler({ status: statusService(deps), incidents: incidentList(deps, config.serviceName), feed, subscriptions, views: statusViews(config.serviceName, zonePageUrl(config)), metrics, baseUrl: config.baseUrl });
  const cards = createCardHandlers({ resolver, metrics, logger, baseUrl: config.baseUrl });

  const fastify = Fastify({
    // pino's Logger type is wider than Fastify's base logger interface; the instance is the same.
    loggerInstance: logger as unknown as FastifyBaseLogger,
    // Per-request lines are left to the onResponse hook (errors only): cheaper and no raw URLs.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyOption(config.trustProxy),
    return503OnClosing: true,
    frameworkErrors,
    serverFactory: (api) => createHostRoutedServer({ zone: config.zone, apiHostname: config.apiHostname, zoneHost, cards, logger, baseUrl: config.baseUrl }, api),
  });

  const routes: string[] = [];
  fastify.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) routes.push(`${method} ${r.url}`);
  });
  registerJsonBody(fastify);
  await fastify.register(cookie);
  registerCors(fastify, config);
  registerSessionAuth(fastify, deps);
  registerErrorHandlers(fastify, metrics, { baseUrl: config.baseUrl, browserNotFound: browserNotFound({ serviceName: config.serviceName, appUrl: config.appUrl, zoneOrigin: zoneOrigin(config) }) });

  const contextOf = (req: FastifyRequest, reply: FastifyReply): GraphQLContext => ({
    deps,
    oauth,
    viewer: req.viewer,
    accountView: req.accountView,
    presentedBearer: req.credentialVia === 'bearer',
    client: clientInfo(req),
    setSessionCookie: (token, expiresAt) => setSessionCookie(reply, config, token, expiresAt),
    clearSessionCookie: () => clearSessionCookie(reply, config),
  });
  const yoga = createGraphQLServer({
    production: config.production,
    introspection: config.graphqlIntrospection,
    logger,
    baseUrl: config.baseUrl,
    context: ({ req, reply }) => contextOf(req, reply),
  });
  registerGraphQLRoute(fastify, yoga);
  mountRest(fastify, schema, restRoutes, contextOf);
  registerOpenApiRoute(fastify, schema, restRoutes, { serverUrl: config.baseUrl, zone: config.zone, serviceName: config.serviceName, version: SERVICE_VERSION });
  if (config.apiDocs) registerApiDocs(fastify, { serviceName: config.serviceName });
  // The account console owns `/` and its routes when APP_URL is this server; it also answers
  // /mfa and /passkeys then (the standalone pages stay for a dashboard hosted elsewhere).
  const withConsole = consoleEnabled(config);
  const linkPages = withConsole ? LINK_PAGES.filter((p) => !(CONSOLE_ROUTES as readonly string[]).includes(p.path)) : LINK_PAGES;
  registerLinkPages(fastify, { serviceName: config.serviceName, describePendingLink: (token) => describePendingLink(deps, token) }, linkPages);
  registerConsole(fastify, { serviceName: config.serviceName, enabled: withConsole, apiDocs: config.apiDocs, extraRoutes: ['/passkeys'] });
  if (!withConsole) registerPasskeysPage(fastify, { serviceName: config.serviceName });
  if (!config.production) registerGraphiQLAssets(fastify);
  registerOAuthRoutes(fastify, deps);
  registerOAuthServerRoutes(fastify, { ...deps, oauth });
  registerInternalTunnelRoutes(fastify, deps, config.internalApiToken);
  registerInternalOAuthClientRoutes(fastify, deps, config.internalApiToken);
  registerInternalStatusRoutes(fastify, deps, config.internalApiToken);
  registerHealthRoutes(fastify, deps);
  registerProblemRoutes(fastify, config.baseUrl);
  registerFavicon(fastify);
  registerMetricsRoute(fastify, deps);

  await fastify.ready();
  await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  const metricsServer = config.metricsPort !== null ? createMetricsServer(deps) : null;

  return {
    fastify,
    metricsServer,
    routes,
    async listen(port = config.port, host = config.host) {
      if (metricsServer) {
        await new Promise<void>((resolve, reject) => {
          metricsServer.once('error', reject);
          metricsServer.listen({ port: config.metricsPort ?? 0, host }, () => resolve());
        });
      }
      return fastify.listen({ port, host });
    },
    async close() {
      oauth.stop();
      await resolver.stop();
      if (metricsServer?.listening) await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      await fastify.close();
    },
  };
}
