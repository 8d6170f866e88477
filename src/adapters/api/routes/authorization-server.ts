// This server as an OAuth authorization server (API.md sections 12 and 13): the RFC 8414 metadata
// document, the device authorization endpoint (RFC 8628), introspection for the edge, revocation
// (RFC 7009), and the routes oidc-provider answers (ADR 14): authorize and its resume, dynamic
// registration, the JWKS and the token endpoint (ADR 22: every grant, the device-code grant
// included, through the provider; token-endpoint.ts), handed to it unread, and the revocation
// requests that are not this project's own (`tsk_` tokens are). The endpoints speak OAuth, not
// problem+json: form-encoded parameters in, JSON `{error, error_description}` out (RFC 6749
// section 5.2), `Cache-Control: no-store` on every answer that carries a credential. They read no
// cookie, so a cross-site form gains nothing (the session check still refuses a
// cookie-authenticated cross-site write before they run). The decisions live in
// src/domain/device-grant/ and src/domain/oauth/; this file parses and answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import inject from 'light-my-request';
import type { OAuthServer } from '../../authorization-server/server.js';
import { isServiceTokenLike } from '../../../domain/tokens/format.js';
import type { ClientInfo, DomainDeps } from '../../../domain/context.js';
import { DEVICE_CLIENT_ID, DEVICE_CODE_GRANT, startDeviceAuthorization } from '../../../domain/device-grant/device-grant.js';
import { isOAuthError, oauthError, PROBLEMS, type OAuthAppError } from '../../../domain/errors.js';
import { TOKEN_SCOPES } from '../../../domain/tokens/scopes.js';
import { MCP_SCOPE } from '../../../domain/cards/card.js';
import { revokeServiceTokenByValue } from '../../../domain/tokens/service-tokens.js';
import type { Config } from '../../../infra/config.js';
import { clientInfo } from '../session-auth.js';
import { hasBearer } from '../bearer.js';
import { bodyTooLarge } from '../../errors.js';
import { countAuthorization, countRegistration } from '../../../domain/oauth/registration.js';
import type { IncomingMessage } from 'node:http';
import { AUTHORIZING_SESSION } from '../../authorization-server/oidc-provider.js';
import { REQUEST_CLIENT } from '../../authorization-server/token-endpoint.js';

export interface OAuthServerDeps extends DomainDeps {
  config: Pick<Config, 'baseUrl' | 'appUrl' | 'internalApiToken'>;
  oauth: OAuthServer;
}

/** Form bodies are small: a handful of parameters. */
const FORM_LIMIT = 16 * 1024;
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A parsed form body: its parameters, or why they are refused (answered as invalid_request), and its text. */
class FormBody {
  constructor(
    readonly params: Map<string, string>,
    readonly refused: string | null,
    readonly text: string,
  ) {}
}

function parseForm(text: string): FormBody {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    // RFC 6749 section 3.1: parameters must not be included more than once.
    if (params.has(name)) return new FormBody(params, `The parameter ${name} is repeated.`, text);
    params.set(name, value);
  }
  return new FormBody(params, null, text);
}

/** Headers of the provider's answer that the real reply must not copy. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * Replays a revocation whose form was read here (to tell `tsk_` tokens apart) through the
 * provider, and answers what it answered. The provider reads a request's body itself, so the
 * form goes to it again, as sent.
 */
async function replayRevocation(oauth: OAuthServer, req: FastifyRequest, reply: FastifyReply, form: FormBody): Promise<FastifyReply> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && name !== 'content-length' && name !== 'transfer-encoding') headers[name] = value;
  }
  const res = await inject(oauth.handler, { method: 'POST', url: req.raw.url ?? '/', headers, payload: form.text, remoteAddress: req.ip });
  reply.status(res.statusCode);
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
  }
  return reply.send(res.rawPayload);
}

/**
 * Hands the request, unread, to the provider (authorize, its resume, the JWKS, registration and
 * the token endpoint), with the headers set so far (CORS) and the caller as this server reads it
 * (its address behind the trusted proxies, its user agent).
 */
function handOver(oauth: OAuthServer, req: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  (req.raw as IncomingMessage & { [REQUEST_CLIENT]?: ClientInfo })[REQUEST_CLIENT] = clientInfo(req);
  void oauth.handler(req.raw, reply.raw);
}

/** The 429 page of /oauth/authorize: a browser is on the other end. */
function tooManyAuthorizations(reply: FastifyReply, retryAfterSeconds: number): FastifyReply {
  return reply
    .status(429)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'retry-after': String(retryAfterSeconds),
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    })
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Too many sign-in requests</title></head><body><main><h1>Too many sign-in requests</h1><p>Too many applications asked to sign in from your network in the last minute. Wait ${retryAfterSeconds} seconds, then go back to the application and try again.</p></main></body></html>`,
    );
}

/**
 * /oauth/authorize (section 13a): counted per network before any work; the console session whose
 * cookie came with it is handed to the provider, which binds the consent request to it; and a
 * request without `scope` asks for `mcp`.
 */
async function authorize(deps: OAuthServerDeps, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  const { allowed, retryAfterSeconds } = await countAuthorization(deps, clientInfo(req));
  if (!allowed) return tooManyAuthorizations(reply, retryAfterSeconds);
  if (req.credentialVia === 'cookie' && req.viewer !== null && req.viewer.scopes === null) {
    (req.raw as IncomingMessage & { [AUTHORIZING_SESSION]?: string })[AUTHORIZING_SESSION] = req.viewer.sessionId;
  }
  const url = new URL(req.raw.url ?? '/', 'http://x');
  if (!url.searchParams.has('scope')) {
    url.searchParams.set('scope', MCP_SCOPE);
    req.raw.url = `${url.pathname}${url.search}`;
  }
  handOver(deps.oauth, req, reply);
}

function paramsOf(req: FastifyRequest): Map<string, string> {
  const form = req.body;
  if (!(form instanceof FormBody)) throw oauthError(PROBLEMS.oauthInvalidRequest, `Send the parameters as ${FORM_TYPE}.`);
  if (form.refused !== null) throw oauthError(PROBLEMS.oauthInvalidRequest, form.refused);
  return form.params;
}

/** RFC 6749 section 5.2's answer of a catalog entry: its `error`, the message as `error_description`. */
function sendOAuthError(reply: FastifyReply, err: OAuthAppError): FastifyReply {
  const retry = err.extra.retryAfterSeconds;
  if (retry !== undefined) reply.header('retry-after', String(retry));
  return reply
    .status(err.status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
    .send({ error: err.problem.oauthError, error_description: err.message });
}

/** The RFC 8414 document: sections 12 and 13 together. */
export function authorizationServerMetadata(baseUrl: string): Record<string, unknown> {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    registration_endpoint: `${baseUrl}/oauth/register`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    introspection_endpoint: `${baseUrl}/oauth/introspect`,
    jwks_uri: `${baseUrl}/oauth/jwks`,
    device_authorization_endpoint: `${baseUrl}/oauth/device_authorization`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    scopes_supported: [MCP_SCOPE, ...TOKEN_SCOPES],
  };
}

export function registerOAuthServerRoutes(app: FastifyInstance, deps: OAuthServerDeps): void {
  const { config, oauth } = deps;
  const metadata = JSON.stringify(authorizationServerMetadata(config.baseUrl));

  app.get('/oauth/authorize', async (req, reply) => authorize(deps, req, reply));
  // The provider's own GET routes, unread and answered by it.
  for (const url of ['/oauth/authorize/:uid', '/oauth/jwks']) {
    app.get(url, async (req, reply) => handOver(oauth, req, reply));
  }

  app.get('/.well-known/oauth-authorization-server', async (_req, reply) =>
    reply
      .headers({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' })
      .send(metadata),
  );

  // The provider's POST routes: the body stays unread, for the provider to read (ADR 22).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    // A body declared over the forms' limit is refused (413) before the provider reads any of it
    // (the provider's own limit bounds one sent in chunks).
    scope.addHook('preHandler', async (req) => {
      if (Number(req.headers['content-length'] ?? 0) > FORM_LIMIT) throw bodyTooLarge();
    });
    scope.setErrorHandler((err, _req, reply) => {
      if (isOAuthError(err)) return sendOAuthError(reply, err);
      throw err;
    });
    scope.post('/oauth/register', async (req, reply) => {
      await countRegistration(deps, clientInfo(req));
      handOver(oauth, req, reply);
    });
    scope.post('/oauth/token', async (req, reply) => handOver(oauth, req, reply));
  });

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => done(null, parseForm(String(body))));
    // Anything else (JSON included) is refused: these endpoints answer it invalid_request.
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, _body, done) => done(null, null));
    scope.setErrorHandler((err, _req, reply) => {
      if (isOAuthError(err)) return sendOAuthError(reply, err);
      throw err;
    });

    scope.post('/oauth/device_authorization', async (req, reply) => {
      const params = paramsOf(req);
      const codes = await startDeviceAuthorization(deps, { clientId: params.get('client_id'), scope: params.get('scope') }, clientInfo(req));
      const page = `${config.appUrl}/device`;
      return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send({
        device_code: codes.deviceCode,
        user_code: codes.userCode,
        verification_uri: page,
        verification_uri_complete: `${page}?user_code=${codes.userCode}`,
        expires_in: codes.expiresIn,
        interval: codes.interval,
      });
    });

    // RFC 7662 for the edge, authenticated with INTERNAL_API_TOKEN (ADR 14: JWT access tokens are
    // introspected here, not by the provider).
    scope.post('/oauth/introspect', async (req, reply) => {
      reply.header('cache-control', 'no-store');
      if (!config.internalApiToken || !hasBearer(req.headers.authorization, config.internalApiToken)) {
        return sendOAuthError(reply.header('www-authenticate', 'Bearer'), oauthError(PROBLEMS.oauthIntrospectionRefused, 'Introspection needs the internal API token.'));
      }
      const token = paramsOf(req).get('token');
      if (token === undefined || token === '') throw oauthError(PROBLEMS.oauthInvalidRequest, 'token is required.');
      return reply.send(await oauth.introspect(token));
    });

    scope.post('/oauth/revoke', async (req, reply) => {
      const params = paramsOf(req);
      const token = params.get('token');
      if (token === undefined || token === '') throw oauthError(PROBLEMS.oauthInvalidRequest, 'token is required.');
      // Refresh tokens are the provider's; service tokens (and anything unknown) are answered here.
      const clientId = params.get('client_id');
      const client = clientId ?? (req.headers.authorization === undefined ? undefined : 'authenticated');
      if (!isServiceTokenLike(token) && client !== undefined && client !== DEVICE_CLIENT_ID) return replayRevocation(oauth, req, reply, req.body as FormBody);
      // RFC 7009 section 2.2: 200 whether or not the token was valid.
      await revokeServiceTokenByValue(deps, token, clientInfo(req));
      return reply.headers({ 'cache-control': 'no-store' }).status(200).send();
    });
  });
}
