// This server as an OAuth authorization server (API.md section 12): the RFC 8414 metadata
// document, the device authorization endpoint (RFC 8628), the token endpoint and revocation
// (RFC 7009). The endpoints speak OAuth, not problem+json: form-encoded parameters in, JSON
// `{error, error_description}` out (RFC 6749 section 5.2), `Cache-Control: no-store` on every
// answer that carries a credential. They read no cookie, so a cross-site form gains nothing
// (the session check still refuses a cookie-authenticated cross-site write before they run).
// The decisions live in src/domain/device-grant/; this file parses and answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DomainDeps } from '../../../domain/context.js';
import {
  DEVICE_CODE_GRANT,
  exchangeDeviceCode,
  startDeviceAuthorization,
} from '../../../domain/device-grant/device-grant.js';
import { OAuthError } from '../../../domain/device-grant/oauth-error.js';
import { TOKEN_SCOPES } from '../../../domain/tokens/scopes.js';
import { revokeServiceTokenByValue } from '../../../domain/tokens/service-tokens.js';
import type { Config } from '../../../infra/config.js';
import { clientInfo } from '../session-auth.js';

export interface OAuthServerDeps extends DomainDeps {
  config: Pick<Config, 'baseUrl' | 'appUrl'>;
}

/** Form bodies are small: a handful of parameters. */
const FORM_LIMIT = 16 * 1024;
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A parsed form body: its parameters, or why they are refused (answered as invalid_request). */
class FormBody {
  constructor(
    readonly params: Map<string, string>,
    readonly refused: string | null,
  ) {}
}

function parseForm(text: string): FormBody {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    // RFC 6749 section 3.1: parameters must not be included more than once.
    if (params.has(name)) return new FormBody(params, `The parameter ${name} is repeated.`);
    params.set(name, value);
  }
  return new FormBody(params, null);
}

function paramsOf(req: FastifyRequest): Map<string, string> {
  const form = req.body;
  if (!(form instanceof FormBody)) throw new OAuthError('invalid_request', `Send the parameters as ${FORM_TYPE}.`);
  if (form.refused !== null) throw new OAuthError('invalid_request', form.refused);
  return form.params;
}

function sendOAuthError(reply: FastifyReply, err: OAuthError): FastifyReply {
  const limited = err.retryAfterSeconds !== undefined;
  if (limited) reply.header('retry-after', String(err.retryAfterSeconds));
  return reply
    .status(limited ? 429 : 400)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
    .send({ error: err.error, error_description: err.description });
}

/** The RFC 8414 document; section 13 adds the authorization-code endpoints to it. */
export function authorizationServerMetadata(baseUrl: string): Record<string, unknown> {
  return {
    issuer: baseUrl,
    device_authorization_endpoint: `${baseUrl}/oauth/device_authorization`,
    token_endpoint: `${baseUrl}/oauth/token`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    grant_types_supported: [DEVICE_CODE_GRANT],
    // No authorization endpoint yet (section 13 adds `code`): the device grant needs none.
    response_types_supported: [],
    scopes_supported: [...TOKEN_SCOPES],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
  };
}

export function registerOAuthServerRoutes(app: FastifyInstance, deps: OAuthServerDeps): void {
  const { config } = deps;
  const metadata = JSON.stringify(authorizationServerMetadata(config.baseUrl));

  app.get('/.well-known/oauth-authorization-server', async (_req, reply) =>
    reply
      .headers({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' })
      .send(metadata),
  );

  void app.register(async (scope) => {
    scope.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => done(null, parseForm(String(body))));
    // Anything else (JSON included) reaches the handler without parameters: invalid_request.
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, _body, done) => done(null, undefined));
    scope.setErrorHandler((err, _req, reply) => {
      if (err instanceof OAuthError) return sendOAuthError(reply, err);
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

    scope.post('/oauth/token', async (req, reply) => {
      const params = paramsOf(req);
      const grant = params.get('grant_type');
      if (grant === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');
      if (grant !== DEVICE_CODE_GRANT) throw new OAuthError('unsupported_grant_type', `Supported: ${DEVICE_CODE_GRANT}.`);
      const issued = await exchangeDeviceCode(deps, { deviceCode: params.get('device_code'), clientId: params.get('client_id') }, clientInfo(req));
      return reply
        .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
        .send({ access_token: issued.accessToken, token_type: 'Bearer', scope: issued.scope });
    });

    scope.post('/oauth/revoke', async (req, reply) => {
      const token = paramsOf(req).get('token');
      if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required.');
      // RFC 7009 section 2.2: 200 whether or not the token was valid.
      await revokeServiceTokenByValue(deps, token, clientInfo(req));
      return reply.headers({ 'cache-control': 'no-store' }).status(200).send();
    });
  });
}
