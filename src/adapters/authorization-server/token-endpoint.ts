// POST /oauth/token is oidc-provider's (ADR 22): Fastify hands it the request unread, and what
// this project adds to the endpoint is plugged into the provider here, through its API:
//   - the device-code grant (API.md section 12, ADR 13) is a grant type registered with the
//     provider, whose handler is src/domain/device-grant/'s exchange; its one client, the tunnel
//     CLI, is a static public client of the provider allowed that grant only;
//   - refresh tokens presented twice at once take turns (refresh-rotation.ts) around the
//     provider's own refresh_token handler, and no grant takes a parameter twice;
//   - the answers RFC 6749 and sections 12 and 13a ask for where the provider's differ: a client
//     that tried to authenticate with a form secret and failed gets WWW-Authenticate as a failed
//     Basic does, and the device grant tried by any client but the CLI is 400 invalid_client.
// Errors keep RFC 6749 section 5.2's shape (the provider's error handler writes them), with
// Cache-Control: no-store on every answer (the provider's token route sets it).
import type { IncomingMessage } from 'node:http';
import type { ClientMetadata, errors as OidcErrors, KoaContextWithOIDC, Provider, TokenEndpointGrantContext } from 'oidc-provider';
import type { ClientInfo, DomainDeps } from '../../domain/context.js';
import { DEVICE_CLIENT_ID, DEVICE_CODE_GRANT, exchangeDeviceCode } from '../../domain/device-grant/device-grant.js';
import { isOAuthError, type OAuthAppError } from '../../domain/errors.js';
import type { RefreshRotations, TokenBody } from './refresh-rotation.js';

/** Where the HTTP layer leaves the caller's address and user agent (as it reads them) for the provider's handlers. */
export const REQUEST_CLIENT = Symbol('request client');
type ClientRequest = IncomingMessage & { [REQUEST_CLIENT]?: ClientInfo };

/** The tunnel CLI as the provider knows it: public, the device grant only, no redirect. */
export const DEVICE_CLIENT: ClientMetadata = {
  client_id: DEVICE_CLIENT_ID,
  client_name: 'Tunnel CLI',
  token_endpoint_auth_method: 'none',
  grant_types: [DEVICE_CODE_GRANT],
  response_types: [],
  redirect_uris: [],
};

type Errors = typeof OidcErrors;
type GrantHandler<Params extends object = object> = (ctx: TokenEndpointGrantContext<Params>) => void | Promise<void>;
type ParameterNames = string | readonly string[] | ReadonlySet<string>;
type ProviderClass = typeof Provider;

/** A catalog entry's refusal as the provider answers errors: its `error`, status, description (and Retry-After). */
function providerError(errors: Errors, ctx: KoaContextWithOIDC, err: OAuthAppError): InstanceType<Errors['OIDCProviderError']> {
  const out = new errors.OIDCProviderError(err.status, err.problem.oauthError);
  out.error_description = err.message;
  out.expose = true;
  const retry = err.extra.retryAfterSeconds;
  if (retry !== undefined) ctx.set('retry-after', String(retry));
  return out;
}

/** The device-code grant: the domain's exchange, its refusals as the provider's errors. */
function deviceCodeGrant(deps: DomainDeps, errors: Errors): GrantHandler {
  return async (ctx) => {
    const req = ctx.req as ClientRequest;
    const client = req[REQUEST_CLIENT] ?? { ip: ctx.ip, userAgent: ctx.get('user-agent').slice(0, 512) };
    try {
      const issued = await exchangeDeviceCode(deps, { deviceCode: ctx.oidc.params.device_code, clientId: ctx.oidc.client.clientId }, client);
      ctx.set('pragma', 'no-cache');
      ctx.body = { access_token: issued.accessToken, token_type: 'Bearer', scope: issued.scope };
    } catch (err) {
      throw isOAuthError(err) ? providerError(errors, ctx, err) : err;
    }
  };
}

/** The provider's refresh_token handler, presentations of one token taking turns. */
function takingTurns(original: GrantHandler, rotations: RefreshRotations, errors: Errors): GrantHandler {
  return async (ctx) => {
    const token = ctx.oidc.params.refresh_token;
    if (typeof token !== 'string' || token === '') return original(ctx);
    // Only a public client gets the grace: one that authenticates can be told apart from a thief.
    const client = ctx.oidc.client;
    const publicClient = client.clientAuthMethod === 'none' ? client.clientId : null;
    const body = await rotations.exchange(token, publicClient, async () => {
      await original(ctx);
      return ctx.body as TokenBody;
    });
    if (body === null) {
      ctx.set('retry-after', '1');
      const busy = new errors.OIDCProviderError(503, 'temporarily_unavailable');
      busy.error_description = 'This refresh token is being exchanged right now. Try again in a moment.';
      busy.expose = true;
      throw busy;
    }
    ctx.body = body;
  };
}

/**
 * The provider class to build: the library's, with its grants (registered by its constructor
 * through registerGrantType) as this server answers them: every parameter once (RFC 6749 section
 * 3.2; the provider would take `resource` repeated), and refresh_token taking turns.
 */
export function providerTakingTurns(Base: ProviderClass, rotations: RefreshRotations, errors: Errors): ProviderClass {
  return class extends Base {
    override registerGrantType<Params extends object>(name: string, handler: GrantHandler<Params>, params?: ParameterNames): void {
      super.registerGrantType(name, name === 'refresh_token' ? (takingTurns(handler as GrantHandler, rotations, errors) as GrantHandler<Params>) : handler, params);
    }
  };
}

/** The device-code grant and the token endpoint's answers, on a built provider. */
export function completeTokenEndpoint(provider: Provider, deps: DomainDeps, errors: Errors): void {
  provider.registerGrantType(DEVICE_CODE_GRANT, deviceCodeGrant(deps, errors), 'device_code');
  provider.use(async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    if ((route !== 'token' && route !== 'revocation') || ctx.status < 400) return;
    const params = (ctx.oidc.params ?? {}) as Record<string, unknown>;
    const basic = ctx.get('authorization') !== '';
    // Section 12: the device grant is the CLI's; any other client (unknown, none, or registered
    // without the grant) hears 400 invalid_client, as before the provider answered it.
    if (route === 'token' && params.grant_type === DEVICE_CODE_GRANT && ctx.oidc.client?.clientId !== DEVICE_CLIENT_ID && !basic) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_client', error_description: 'Unknown client_id.' };
      return;
    }
    // Section 13a: invalid_client is a 401 with WWW-Authenticate when the client tried to
    // authenticate; the provider adds it for Basic only.
    if (ctx.status === 401 && params.client_secret !== undefined && !ctx.response.get('www-authenticate')) {
      ctx.set('www-authenticate', `Basic realm="${ctx.oidc.provider.issuer}", error="invalid_client"`);
    }
  });
}
