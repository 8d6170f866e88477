// The running authorization server (ADR 14): the oidc-provider instance for the current signing
// keys (rebuilt when a rotation changes them), and the console's consent operations on its
// interactions. A consent request is bound to the first console session that opens it, lives as
// long as the provider's interaction (10 minutes) and is decided once. Approving settles the
// interaction's login and consent in one result, then resumes the authorization in process
// (interaction-resume.ts), so the answer is the client's redirect URI with `code`, `state` and
// `iss`, as API.md section 13 says.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from 'oidc-provider';
import type { ClientInfo, Viewer } from '../../domain/context.js';
import { forbidden, notFound, PROBLEMS, unavailable } from '../../domain/errors.js';
import { recordConsent } from '../../domain/oauth/consent.js';
import { accessRefusal, allowedAccount, mayAccess, oauthResource } from '../../domain/oauth/resources.js';
import { findGrant, setGrantTunnel } from '../../domain/oauth/store.js';
import { requireRecentAuth } from '../../domain/sessions/recent-auth.js';
import { ensureSigningKeys, jwksOf } from '../../domain/oauth/signing-keys.js';
import { cachedIntrospection, type Introspection } from '../../domain/oauth/introspection-cache.js';
import { createLocalJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { MCP_SCOPE } from '../../domain/cards/card.js';
import { bindingKey, createOAuthProvider, loadOidcProvider, TTL, withLibraryNotices, type OAuthDeps } from './oidc-provider.js';
import { InteractionResume } from './interaction-resume.js';

/** What the consent page shows (GET /api/oauth/requests/<id>). */
export interface ConsentRequest {
  clientId: string;
  clientName: string;
  redirectHost: string;
  resource: string;
  tunnel: { id: string; host: string };
  scopes: string[];
  /** Whether the signed-in account may be granted access; when false the page can only deny. */
  allowed: boolean;
}

export type { Introspection } from '../../domain/oauth/introspection-cache.js';

const INACTIVE: Introspection = { active: false };

const KEY_CHECK_MS = 3600_000;

/** The provider and the keys it signs with, together: a rotation replaces both. */
interface Running {
  provider: Provider;
  kids: string;
  verifyKeys: JWTVerifyGetKey;
}

/** While the keys cannot be used (see start), every OAuth answer is this. */
const unavailableHere = () => unavailable(PROBLEMS.oauthUnavailable, 'OAuth sign-in is unavailable on this server right now. Try again later.');

export class OAuthServer {
  private running: Running | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly resumer: InteractionResume;

  private constructor(
    private readonly deps: OAuthDeps,
    private readonly oidc: Awaited<ReturnType<typeof loadOidcProvider>>,
  ) {
    this.timer = setInterval(() => void this.refreshKeys().catch((err: unknown) => deps.logger.error({ err: (err as Error).message }, 'oauth signing keys unusable')), KEY_CHECK_MS);
    this.timer.unref();
    this.resumer = new InteractionResume(deps.config.baseUrl, InteractionResume.cookieSecretOf(deps));
  }

  /**
   * Starts with the shared signing keys. An instance whose ENCRYPTION_KEY differs from the one the
   * keys were sealed with cannot open them: it says so in the log and answers 503 on the OAuth
   * paths (trying again hourly) instead of refusing to start, so accounts, cards and status stay up.
   */
  static async start(deps: OAuthDeps): Promise<OAuthServer> {
    const server = new OAuthServer(deps, await loadOidcProvider(deps.logger));
    await server.refreshKeys().catch((err: unknown) =>
      deps.logger.error({ err: (err as Error).message }, 'oauth signing keys unusable (is ENCRYPTION_KEY the same on every instance?); the OAuth paths answer 503'),
    );
    return server;
  }

  /** Makes or retires keys when due; a changed set gets a provider of its own. */
  async refreshKeys(): Promise<void> {
    const keys = await ensureSigningKeys(this.deps);
    const kids = keys.published.map((k) => k.kid).join();
    if (kids === this.running?.kids) return;
    const provider = await withLibraryNotices(this.deps.logger, () => createOAuthProvider(this.oidc, this.deps, keys, this.resumer));
    this.running = { provider, kids, verifyKeys: createLocalJWKSet(jwksOf(keys)) };
  }

  private get provider(): Provider {
    if (!this.running) throw unavailableHere();
    return this.running.provider;
  }

  /**
   * RFC 7662 for the edge: active only while the token verifies (signature, issuer, type, expiry),
   * its grant stands (not revoked, not reused), its audience is still an `oauth` tunnel's /mcp URL
   * and its account exists and is still allowed on that tunnel.
   */
  async introspect(token: string): Promise<Introspection> {
    if (!this.running) throw unavailableHere();
    const running = this.running;
    return cachedIntrospection(this.deps, token, () => this.introspectAnew(running, token));
  }

  /** The answer from the token itself and the database (cachedIntrospection keeps active ones). */
  private async introspectAnew(running: Running, token: string): Promise<Introspection> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, running.verifyKeys, { issuer: this.deps.config.baseUrl, typ: 'at+jwt' }));
    } catch {
      return INACTIVE;
    }
    const { sub, aud, client_id: clientId, scope, exp, grant_id: grantId } = payload;
    if (typeof sub !== 'string' || typeof aud !== 'string' || typeof clientId !== 'string' || typeof scope !== 'string' || typeof exp !== 'number' || typeof grantId !== 'string') return INACTIVE;
    const grant = await findGrant(this.deps.db, grantId, this.deps.clock());
    if (!grant || grant.accountId !== sub || grant.clientId !== clientId) return INACTIVE;
    const resource = await oauthResource(this.deps, aud);
    // The grant was given for that tunnel, not for whatever answers at its URL now (section 13a).
    if (!resource || (grant.tunnelId !== null && grant.tunnelId !== resource.tunnel.id)) return INACTIVE;
    const account = await allowedAccount(this.deps, resource, sub);
    if (!account) return INACTIVE;
    return { active: true, sub, aud, client_id: clientId, scope, exp, email: account.email };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The provider's request handler (node's req, res). */
  get handler(): Provider['callback'] extends () => infer H ? H : never {
    if (!this.running) {
      return ((_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '60' });
        res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'OAuth sign-in is unavailable on this server right now.' }));
      }) as Provider['callback'] extends () => infer H ? H : never;
    }
    return this.running.provider.callback();
  }

  private async pending(uid: string, viewer: Viewer) {
    const interaction = await this.provider.Interaction.find(uid);
    if (!interaction || interaction.result) throw notFound(PROBLEMS.authorizationNotFound, 'This sign-in request is unknown, expired or already answered. Start again from the application.');
    // Bound to the first session that opens it: another browser cannot decide it.
    const cache = this.deps.cache;
    const claimed = await cache.setIfAbsent(bindingKey(uid), viewer.sessionId, TTL.Interaction * 1000);
    if (!claimed && (await cache.get(bindingKey(uid))) !== viewer.sessionId) throw notFound(PROBLEMS.authorizationNotFound, 'This sign-in request was opened in another session.');
    const params = interaction.params as Record<string, unknown>;
    const resource = await oauthResource(this.deps, params.resource);
    if (!resource) throw notFound(PROBLEMS.authorizationNotFound, 'The tunnel of this request no longer requires OAuth.');
    const clientId = String(params.client_id);
    const client = await this.provider.Client.find(clientId);
    if (!client) throw notFound(PROBLEMS.authorizationNotFound, 'The application of this request is no longer registered.');
    return { interaction, resource, client, clientId };
  }

  async describe(uid: string, viewer: Viewer): Promise<ConsentRequest> {
    const { interaction, resource, client, clientId } = await this.pending(uid, viewer);
    const params = interaction.params as Record<string, unknown>;
    return {
      clientId,
      clientName: client.clientName ?? clientId,
      redirectHost: new URL(String(params.redirect_uri)).host,
      resource: resource.resource,
      tunnel: { id: resource.tunnel.id, host: resource.host },
      scopes: typeof params.scope === 'string' && params.scope.trim() !== '' ? params.scope.trim().split(/\s+/) : [MCP_SCOPE],
      allowed: await mayAccess(this.deps, resource, viewer.accountId),
    };
  }

  /**
   * Approves: the client's redirect URI with the code. 403 for someone not allowed on the tunnel
   * (an unverified address included), and REAUTH_REQUIRED for a session that has not proved a
   * credential lately (section 13a); the request stays usable for the approve that follows.
   */
  async approve(uid: string, viewer: Viewer, client: ClientInfo): Promise<string> {
    const { interaction, resource, clientId, client: oauthClient } = await this.pending(uid, viewer);
    const refusal = await accessRefusal(this.deps, resource, viewer.accountId);
    if (refusal !== null) throw forbidden(PROBLEMS.authorizationRefused, refusal);
    await requireRecentAuth(this.deps, viewer);
    const grant = new this.provider.Grant({ accountId: viewer.accountId, clientId });
    grant.addResourceScope(resource.resource, MCP_SCOPE);
    const grantId = await grant.save();
    await setGrantTunnel(this.deps.db, grantId, resource.tunnel.id);
    interaction.result = { login: { accountId: viewer.accountId }, consent: { grantId } };
    await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
    const redirect = await this.resume(uid, interaction.returnTo);
    await recordConsent(this.deps, viewer.accountId, { clientId, clientName: oauthClient.clientName ?? clientId, tunnelId: resource.tunnel.id, resource: resource.resource }, client);
    return redirect;
  }

  /** Denies: the client's redirect URI with error=access_denied. */
  async deny(uid: string, viewer: Viewer): Promise<string> {
    const { interaction } = await this.pending(uid, viewer);
    interaction.result = { error: 'access_denied', error_description: 'The user denied the request.' };
    await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
    return this.resume(uid, interaction.returnTo);
  }

  /** Resumes the decided request in process, as the browser that started it would: the client's redirect. */
  private async resume(uid: string, returnTo: string): Promise<string> {
    const answer = await this.resumer.resume(this.handler, uid, returnTo);
    await this.deps.cache.del(bindingKey(uid));
    if (answer.location === null) {
      this.deps.logger.error({ status: answer.status }, 'oauth resume did not redirect');
      throw notFound(PROBLEMS.authorizationNotFound, 'This sign-in request could not be completed. Start again from the application.');
    }
    return answer.location;
  }
}
