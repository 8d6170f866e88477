// The per-request context of every resolver, built by the HTTP adapter (GraphQL or REST shim).
import type { DomainDeps, ClientInfo, Viewer } from '../../domain/context.js';
import type { Config } from '../../infra/config.js';
import type { AccountView } from '../../domain/accounts/account-view.js';
import type { StatusDeps } from '../../domain/status/rollup.js';
import type { OAuthServer } from '../authorization-server/server.js';

export interface GraphQLContext {
  deps: DomainDeps & { config: Config } & StatusDeps;
  /** The authorization server: its consent requests (API.md section 13). */
  oauth: Pick<OAuthServer, 'describe' | 'approve' | 'deny'>;
  viewer: Viewer | null;
  /** The viewer's account view, when it was read with the session (GET /api/account on a cold session). */
  accountView?: AccountView | null;
  /** The request presented `Authorization: Bearer` (when `viewer` is null, a token that did not authenticate). */
  presentedBearer: boolean;
  client: ClientInfo;
  /** Sets the HttpOnly session cookie on the response (both surfaces sign the dashboard in). */
  setSessionCookie(token: string, expiresAt: Date): void;
  clearSessionCookie(): void;
}

/** The signed-in caller and where they call from, as the domain's access decisions take them. */
export function actorOf(ctx: GraphQLContext): { viewer: Viewer; client: ClientInfo } {
  // Only fields behind `authScopes: { signedIn: true }` ask, so a viewer is there.
  if (!ctx.viewer) throw new Error('actorOf: no signed-in viewer');
  return { viewer: ctx.viewer, client: ctx.client };
}
