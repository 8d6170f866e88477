// The OAuth redirect endpoints: GET /auth/oauth/<provider>/start and /callback. The adapter
// owns the browser side (the binding cookie, the session cookie, redirects); the decisions live
// in state.ts and complete-sso.ts. Every redirect goes to an APP_URL path built here, never to an
// address taken from the request. Callback URLs carry the provider's code, so nothing here logs
// a URL, and internal failures end in a redirect rather than a logged 5xx.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Logger } from 'pino';
import type { DomainDeps } from '../../../domain/context.js';
import type { Config } from '../../../infra/config.js';
import { badRequest, forbidden, notFound, PROBLEMS, unauthenticated } from '../../../domain/errors.js';
import { clientInfo, cookieName, setSessionCookie } from '../session-auth.js';
import { completeSso, type SsoOutcome } from '../../../domain/sso/complete-sso.js';
import { isProviderName, PROVIDER_NAMES, type ProviderName } from '../../../domain/sso/identity.js';
import type { SsoProvider } from '../../../domain/sso/providers.js';
import { badStatePage } from '../../pages/bad-state-page.js';
import { browserBinding, saveFlow, STATE_TTL_MS, takeFlow, type Intent } from '../../../domain/sso/state.js';
import { guardAddition } from '../../../domain/sessions/recent-auth.js';
import { assertProviderReauthAllowed } from '../../../domain/sso/provider-reauth.js';
import { problem, problemOrPage, queryParameter, SERVER_FAULT, type Json, type RawPaths, type RawResponse } from '../../openapi-paths.js';


/** `?intent=` of /start: absent (sign in), `link` or `reauth`. */
const IntentParam = z.enum(['link', 'reauth']).meta({
  description: '`link` adds the provider to the signed-in account (verified address and recent authentication needed); `reauth` re-authenticates the session.',
});

type ProviderParams = { Params: { provider: string }; Querystring: Record<string, unknown> };

const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

export interface OAuthRouteDeps extends DomainDeps {
  config: Pick<Config, 'appUrl' | 'secureCookies'>;
  logger: Logger;
  /** The enabled providers (src/domain/sso/providers.ts). */
  providers: ReadonlyMap<ProviderName, SsoProvider>;
}

export function registerOAuthRoutes(app: FastifyInstance, deps: OAuthRouteDeps): void {
  const { config, logger, providers } = deps;
  /** Holds the random value that binds an OAuth state to this browser. */
  const bindingCookie = cookieName('oauth_binding', config);
  const providerOf = (name: string): SsoProvider => {
    const provider = isProviderName(name) ? providers.get(name) : undefined;
    if (!provider) throw notFound(PROBLEMS.providerNotFound, 'No such sign-in provider.');
    return provider;
  };

  /** APP_URL plus a fixed path and our own query parameters: no open redirect. */
  const toApp = (reply: FastifyReply, path: '/' | '/link-account' | '/mfa', query: Record<string, string> = {}) => {
    const qs = new URLSearchParams(query).toString();
    return reply
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .redirect(`${config.appUrl}${path}${qs ? `?${qs}` : ''}`, 302);
  };
  const refuse = (reply: FastifyReply, provider: ProviderName, code: string) => toApp(reply, '/', { sso_error: code, provider });

  app.get<ProviderParams>('/auth/oauth/:provider/start', async (req, reply) => {
    const provider = providerOf(req.params.provider);
    const intentParam = first(req.query.intent);
    if (intentParam !== undefined && !IntentParam.safeParse(intentParam).success) throw badRequest(PROBLEMS.invalidParameter, 'intent must be "link", "reauth" or absent.');
    let intent: Intent = { kind: 'sign-in' };
    // Linking and re-authenticating act for a session; a service token never reaches them.
    if (req.viewer?.scopes) throw forbidden(PROBLEMS.serviceTokenRefused, 'A service token cannot use this path.');
    if (intentParam === 'link') {
      if (!req.viewer) throw unauthenticated(PROBLEMS.signInRequired, 'Sign in before linking a provider.');
      // A new way in: only to a proven address, from a session that proved itself lately (API.md 7a).
      await guardAddition(deps, req.viewer, { verified: true, recent: true });
      intent = { kind: 'link', accountId: req.viewer.accountId };
    } else if (intentParam === 'reauth') {
      if (!req.viewer) throw unauthenticated(PROBLEMS.signInRequired, 'Sign in first.');
      await assertProviderReauthAllowed(deps, req.viewer, provider.name);
      intent = { kind: 'reauth', accountId: req.viewer.accountId, sessionId: req.viewer.sessionId };
    }
    const binding = browserBinding(req.cookies[bindingCookie]);
    let target: URL | undefined;
    await saveFlow(deps.cache, deps.clock(), binding, (state) => {
      const { url, codeVerifier } = provider.authorize(state);
      target = url;
      return { provider: provider.name, intent, codeVerifier };
    });
    // Lax: the callback is a top-level GET from the provider's site, which Lax cookies reach.
    reply.setCookie(bindingCookie, binding, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/', // `__Host-` cookies must have Path=/
      secure: config.secureCookies,
      maxAge: STATE_TTL_MS / 1000,
    });
    return reply.header('cache-control', 'no-store').redirect(target!.href, 302);
  });

  app.get<ProviderParams>('/auth/oauth/:provider/callback', async (req, reply) => {
    const provider = providerOf(req.params.provider);
    const flow = await takeFlow(deps.cache, deps.clock(), req.cookies[bindingCookie], first(req.query.state), provider.name);
    if (!flow) return badState(req, reply, config.appUrl, deps.mailContext.serviceName);
    const error = first(req.query.error);
    if (typeof error === 'string') return refuse(reply, provider.name, error === 'access_denied' ? 'access_denied' : 'provider_error');
    const code = first(req.query.code);
    if (typeof code !== 'string' || code === '') return refuse(reply, provider.name, 'provider_error');

    let outcome: SsoOutcome;
    try {
      const identity = await provider.identify(code, flow.codeVerifier).catch((err: unknown) => {
        const e = err as Error & { status?: number };
        // Class, message and status only: arctic's errors can carry the provider's response body.
        logger.warn({ provider: provider.name, error: e.name, message: e.message, status: e.status }, 'sso provider failed');
        return null;
      });
      if (!identity) return refuse(reply, provider.name, 'provider_error');
      const session = req.viewer?.scopes ? null : req.viewer;
      const viewer = { viewerAccountId: session?.accountId ?? null, viewerSessionId: session?.sessionId ?? null };
      outcome = await completeSso(deps, { identity, intent: flow.intent, ...viewer }, clientInfo(req));
    } catch (err) {
      logger.error({ provider: provider.name, err: (err as Error).message }, 'sso callback failed');
      return refuse(reply, provider.name, 'server_error');
    }
    switch (outcome.kind) {
      case 'signed-in':
        setSessionCookie(reply, config, outcome.signedIn.token, outcome.signedIn.expiresAt);
        return toApp(reply, '/');
      case 'linked':
        return toApp(reply, '/', { sso_linked: provider.name });
      case 'reauthenticated':
        return toApp(reply, '/', { sso_reauth: provider.name });
      case 'pending-link':
        return toApp(reply, '/link-account', { token: outcome.token });
      case 'mfa-required':
        // Two-step sign-in: no session until the code is given on APP_URL/mfa.
        return toApp(reply, '/mfa', { token: outcome.token });
      case 'refused':
        return refuse(reply, provider.name, outcome.reason);
    }
  });
}

/** API.md: 400 for a bad or replayed state; a person in a browser gets a page, not JSON. */
function badState(req: FastifyRequest, reply: FastifyReply, appUrl: string, serviceName: string): FastifyReply {
  if ((req.headers.accept ?? '').includes('text/html')) return badStatePage(reply, appUrl, serviceName);
  throw badRequest(PROBLEMS.signInAttemptInvalid, 'The sign-in attempt is invalid, expired or already used. Start the sign-in again.');
}

const provider: Json = { name: 'provider', in: 'path', required: true, schema: { type: 'string', enum: [...PROVIDER_NAMES] } };
const redirect = (description: string): RawResponse => ({
  description,
  headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } },
});

export const providerSignInPaths: RawPaths = {
  '/auth/oauth/{provider}/start': {
    get: {
      operationId: 'startProviderSignIn',
      summary: "Send the browser to the provider's sign-in (or link, or re-authentication).",
      tags: ['Sign-in providers'],
      security: [{}, { cookie: [] }],
      parameters: [provider, queryParameter('intent', IntentParam)],
      responses: {
        '302': redirect("To the provider's authorization page."),
        '400': problem('An unknown `intent`.'),
        '401': problem('`intent=link` or `intent=reauth` without a session.'),
        '403': problem('`intent=link` with an unverified address, or without recent authentication (REAUTH_REQUIRED).'),
        '404': problem('Unknown or disabled provider.'),
        '5XX': SERVER_FAULT,
      },
    },
  },
  '/auth/oauth/{provider}/callback': {
    get: {
      operationId: 'finishProviderSignIn',
      summary: "The provider's return: signs in, links, or hands over to APP_URL/link-account or APP_URL/mfa.",
      tags: ['Sign-in providers'],
      security: [],
      parameters: [provider, queryParameter('code', z.string()), queryParameter('state', z.string())],
      responses: {
        '302': redirect('To APP_URL with the session set, or to the pending-link or second-step page.'),
        '400': problemOrPage('Bad or replayed state: a page pointing back to the app when the browser asks for HTML, else problem+json.'),
        '404': problem('Unknown or disabled provider.'),
        '5XX': SERVER_FAULT,
      },
    },
  },
};
