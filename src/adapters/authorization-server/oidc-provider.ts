// The authorization server of `oauth` tunnels (API.md section 13) is panva's oidc-provider
// (ADR 14): this file is its configuration. The protocol (PKCE, redirect URI matching, single-use
// codes, refresh rotation with reuse detection, dynamic registration, RFC 9068 access tokens,
// RFC 9207 `iss`) is the library's; the glue here names this project's pieces: the storage
// adapter, the signing keys, the resources (an `oauth` tunnel's /mcp URL), the console as the
// interaction UI, the cookie keys derived from ENCRYPTION_KEY so every instance agrees
// (interaction-resume.ts), and the token endpoint's additions (token-endpoint.ts).
import type { Configuration, Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import type { DomainDeps } from '../../domain/context.js';
import { MCP_SCOPE } from '../../domain/cards/card.js';
import { oauthResource } from '../../domain/oauth/resources.js';
import { grantTunnelId, keepClient, touchGrant } from '../../domain/oauth/store.js';
import { allowedAccount } from '../../domain/oauth/resources.js';
import { invalidateIntrospections } from '../../domain/oauth/introspection-cache.js';
import type { KeySet } from '../../domain/oauth/signing-keys.js';
import type { Config } from '../../infra/config.js';
import { modelAdapter } from './model-adapter.js';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { rootCertificates } from 'node:tls';
import { publicFetch } from '../../infra/net/public-fetch.js';
import { escapeHtml } from '../../infra/html/escape.js';
import { normalizeClientMetadata } from './client-metadata.js';
import { OPERATOR_CLIENT_FLAG } from '../../domain/oauth/clients.js';
import type { InteractionResume } from './interaction-resume.js';
import { RefreshRotations } from './refresh-rotation.js';
import { completeTokenEndpoint, DEVICE_CLIENT, providerTakingTurns } from './token-endpoint.js';

export type OAuthDeps = DomainDeps & {
  config: Pick<Config, 'baseUrl' | 'appUrl' | 'zone' | 'secureCookies' | 'trustProxy' | 'oauthAllowPrivateClientUrls' | 'oauthClientUrlsCaFile'>;
};

/** API.md section 13: a client metadata document within 5 s and 5 KiB. */
const CLIENT_DOCUMENT_TIMEOUT_MS = 5000;
const CLIENT_DOCUMENT_MAX_BYTES = 5 * 1024;

type Fetched = Awaited<ReturnType<typeof publicFetch>>;

/**
 * The provider's fetch (client ID metadata documents): src/infra/net/public-fetch.ts, so only
 * public addresses (unless OAUTH_ALLOW_PRIVATE_CLIENT_URLS), the checked address connected to,
 * no redirects, 5 s, the body read to one byte past the cap (the provider then refuses it).
 * OAUTH_CLIENT_URLS_CA_FILE adds to the system's CAs (section 13a). One fetch per URL at a time:
 * requests that need the same document meanwhile share its answer.
 */
function clientDocumentFetch(config: OAuthDeps['config']): (url: URL | string, options: { method?: string; headers?: HeadersInit }) => Promise<Response> {
  const ca = config.oauthClientUrlsCaFile ? [...rootCertificates, readFileSync(config.oauthClientUrlsCaFile, 'utf8')] : undefined;
  const inFlight = new Map<string, Promise<Fetched>>();
  const fetchOnce = (url: string, method: 'GET' | 'POST', headers: Record<string, string>): Promise<Fetched> => {
    const key = `${method} ${url}`;
    const running = inFlight.get(key);
    if (running) return running;
    const started = publicFetch(url, {
      method,
      headers,
      timeoutMs: CLIENT_DOCUMENT_TIMEOUT_MS,
      maxBytes: CLIENT_DOCUMENT_MAX_BYTES + 1,
      allowPrivate: config.oauthAllowPrivateClientUrls,
      ...(ca ? { ca } : {}),
    }).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };
  return async (url, options) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    new Headers(options.headers).forEach((v, k) => {
      if (v !== '') headers[k] = v;
    });
    const res = await fetchOnce(String(url), options.method === 'POST' ? 'POST' : 'GET', headers);
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
    return new Response(res.status === 204 || res.status === 304 ? null : new Uint8Array(res.body), { status: res.status, headers: out });
  };
}

/** Where /oauth/authorize leaves the console session that came with it (its id), for interactions.url. */
export const AUTHORIZING_SESSION = Symbol('authorizing session');
type AuthorizeRequest = IncomingMessage & { [AUTHORIZING_SESSION]?: string };

/** The cache key binding a consent request to one console session. */
export const bindingKey = (uid: string) => `oauth:req:${uid}`;

/** API.md section 13: codes work once for 60 s; access tokens live an hour; a request 10 minutes. */
export const TTL = {
  AuthorizationCode: 60,
  AccessToken: 3600,
  Interaction: 600,
  Session: 600,
  /** Refresh tokens: rotated on each use (public clients), so each one lives until it is used or 30 days pass. */
  RefreshToken: 30 * 24 * 3600,
  Grant: 365 * 24 * 3600,
} as const;

type OidcModule = typeof import('oidc-provider');
let loaded: Promise<OidcModule> | null = null;

/**
 * oidc-provider, imported once the configuration is known good (so a configuration error stays
 * the one line start-up prints). The library prints its notices with console.warn/info (e.g.
 * "Unsupported runtime" before Node.js 22, ADR 14); while it loads and builds, they go to the
 * structured log instead.
 */
export async function withLibraryNotices<T>(logger: Pick<Logger, 'warn'>, work: () => T | Promise<T>): Promise<T> {
  const { warn, info } = console;
  const toLog = (...args: unknown[]) => {
    // eslint-disable-next-line no-control-regex -- the library colours its notices on a TTY
    const text = args.map(String).join(' ').replace(/\x1b\[[0-9;]*m/g, '');
    if (text.startsWith('oidc-provider')) logger.warn({ library: 'oidc-provider' }, text);
    else warn(...args);
  };
  console.warn = toLog;
  console.info = toLog;
  try {
    return await work();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

export function loadOidcProvider(logger: Pick<Logger, 'warn'>): Promise<OidcModule> {
  loaded ??= withLibraryNotices(logger, () => import('oidc-provider'));
  return loaded;
}

/** A provider for `keys`; its interactions are resumed by `resume` (the cookies are its). */
export function createOAuthProvider(oidc: OidcModule, deps: OAuthDeps, keys: KeySet, resume: InteractionResume): Provider {
  const { errors } = oidc;
  const Provider = providerTakingTurns(oidc.Provider, new RefreshRotations(deps, () => keys.signing), errors);
  const { config } = deps;
  const configuration: Configuration = {
    adapter: modelAdapter(deps.db, errors, deps.cipher, () => invalidateIntrospections(deps)),
    jwks: { keys: keys.published.map((k) => k.privateJwk) } as Configuration['jwks'],
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      jwks: '/oauth/jwks',
      registration: '/oauth/register',
      revocation: '/oauth/revoke',
      // Not served (the routes are not mounted): introspection is this project's (ADR 14).
      introspection: '/oauth/provider-introspection',
      userinfo: '/oauth/provider-userinfo',
      end_session: '/oauth/provider-end-session',
      pushed_authorization_request: '/oauth/provider-par',
      code_verification: '/oauth/provider-device',
      device_authorization: '/oauth/provider-device-authorization',
      backchannel_authentication: '/oauth/provider-ciba',
      challenge: '/oauth/provider-challenge',
    },
    features: {
      devInteractions: { enabled: false },
      // Public clients only (no client secret is ever stored) and no registration management (no
      // registration access token to keep): a registration is a name and redirect URIs.
      registration: { enabled: true, issueRegistrationAccessToken: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', cacheDuration: { min: 30, max: 86400 } },
      resourceIndicators: {
        enabled: true,
        // `resource` is required (API.md section 13): without one, a name no tunnel has, which
        // getResourceServerInfo refuses with invalid_target (sent back to the client).
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? 'urn:tunnel-service:no-resource',
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, resource) => {
          const found = await oauthResource(deps, resource);
          if (!found) throw new errors.InvalidTarget('resource must be the /mcp URL of a tunnel that requires OAuth');
          // Tokens from a grant: only for the tunnel it was given for, to someone still allowed on
          // it (section 13a), so a refresh stops with the access, not an hour later.
          const grant = ctx.oidc.entities.Grant;
          if (grant?.jti) {
            const tunnelId = await grantTunnelId(deps.db, grant.jti);
            if (tunnelId !== null && tunnelId !== found.tunnel.id) throw new errors.InvalidGrant('the tunnel this grant was given for is gone');
            if (!grant.accountId || !(await allowedAccount(deps, found, grant.accountId))) throw new errors.InvalidGrant('the account is no longer allowed on this tunnel');
          }
          return { scope: MCP_SCOPE, audience: found.resource, accessTokenFormat: 'jwt', accessTokenTTL: TTL.AccessToken, jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    // Public clients register themselves (`none`); operator-registered confidential clients
    // (POST /internal/oauth/clients, section 13a) authenticate with their secret.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    // The tunnel CLI, for the device grant (token-endpoint.ts).
    clients: [DEVICE_CLIENT],
    // What MCP clients send at registration or in their metadata documents, made into what this
    // server registers (section 13a; RFC 7591 section 3.2.1 lets the server replace values).
    extraClientMetadata: {
      properties: [OPERATOR_CLIENT_FLAG],
      validator: (ctx, _key, value, metadata) => normalizeClientMetadata(errors, ctx, value, metadata as unknown as Record<string, unknown>),
    },
    pkce: { required: () => true },
    fetch: clientDocumentFetch(config) as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_DOCUMENT_MAX_BYTES },
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // The grant's id rides in the token: introspection checks the grant still stands.
    extraTokenClaims: async (_ctx, token) => ('grantId' in token && token.grantId ? { grant_id: token.grantId } : {}),
    interactions: {
      // The request is bound to the console session whose cookie came with /oauth/authorize (if
      // any); one started signed out is bound to the first session that opens it (section 13a).
      url: async (ctx, interaction) => {
        const sessionId = (ctx.req as AuthorizeRequest)[AUTHORIZING_SESSION];
        if (sessionId !== undefined) await deps.cache.set(bindingKey(interaction.uid), sessionId, TTL.Interaction * 1000);
        return `${config.appUrl}/oauth/consent?request=${encodeURIComponent(interaction.uid)}`;
      },
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    cookies: resume.cookies(config.secureCookies),
    ttl: { ...TTL },
    // An invalid client_id or redirect_uri never redirects (RFC 6749 4.1.2.1): a plain page says why.
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.set('content-security-policy', "default-src 'none'; base-uri 'none'; frame-ancestors 'none'");
      ctx.set('cache-control', 'no-store');
      const detail = typeof out.error_description === 'string' ? out.error_description : 'The request is not valid.';
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sign-in request refused</title></head><body><main><h1>This sign-in request cannot continue</h1><p>${escapeHtml(detail)}</p><p>Error: <code>${escapeHtml(String(out.error))}</code>. Go back to the application and try again; if it keeps happening, tell its developer.</p></main></body></html>`;
    },
  };
  const provider = new Provider(config.baseUrl, configuration);
  provider.proxy = true;
  // API.md section 13 says 302 for the authorization endpoint's redirects (the provider uses 303;
  // for a GET both mean "go there with GET").
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status === 303 && (ctx.oidc?.route === 'authorization' || ctx.oidc?.route === 'resume')) ctx.status = 302;
  });
  completeTokenEndpoint(provider, deps, errors);
  // Refusals are the clients' business; the log says what was refused, never a token. A device
  // still waiting for its approval is no refusal worth a line (it polls every 5 s).
  provider.on('grant.error', (_ctx, err: Error & { error_detail?: string }) => {
    if (err.message !== 'authorization_pending' && err.message !== 'slow_down') deps.logger.info({ err: err.message, detail: err.error_detail }, 'oauth token request refused');
  });
  provider.on('server_error', (_ctx, err: Error) => deps.logger.error({ err: err.message }, 'oauth server error'));
  // "Last used" of the console's lists: each token issuance of a grant. The write is awaited
  // before the token response leaves (the middleware below), so a list read right after the
  // exchange sees it; a failed write is logged, never turned into a refused exchange.
  const lastUse = new WeakMap<object, Promise<unknown>>();
  provider.on('grant.success', (ctx) => {
    const grantId = ctx.oidc.entities.Grant?.jti;
    const clientId = ctx.oidc.entities.Client?.clientId;
    const now = new Date();
    const write = Promise.all([grantId ? touchGrant(deps.db, grantId, now) : null, clientId ? keepClient(deps.db, clientId) : null]).catch((err: unknown) =>
      deps.logger.warn({ err: (err as Error).message }, 'grant last-use write failed'),
    );
    lastUse.set(ctx, write);
  });
  provider.use(async (ctx, next) => {
    await next();
    const write = lastUse.get(ctx);
    if (write) await write;
  });
  return provider;
}
