// Session paths of API.md section 4.
import { graphql } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { SessionList } from '../schemas.js';

export const sessionRoutes: RestRoute[] = [
  route({
    method: 'GET',
    url: '/api/sessions',
    summary: "The account's sessions.",
    operationId: 'listSessions',
    response: SessionList,
    document: graphql('query { me { sessions { id userAgent ip createdAt lastSeenAt method secondStep current } } }'),
    status: 200,
    respond: (d) => ({
      sessions: signedIn(d.me).sessions.map((s) => ({
        id: s.id,
        user_agent: s.userAgent,
        ip: s.ip,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
        method: s.method,
        second_step: s.secondStep,
        current: s.current,
      })),
    }),
  }),
  route({
    method: 'DELETE',
    url: '/api/sessions/:id',
    summary: 'Sign out one other session.',
    errors: { 400: "It is the caller's own session (use /auth/logout).", 404: 'Unknown session.' },
    document: graphql('mutation ($id: ID!) { revokeSession(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
  route({ method: 'POST', url: '/auth/logout', summary: 'Sign out this session.', document: graphql('mutation { logout }'), status: 204 }),
  route({ method: 'POST', url: '/auth/logout-all', summary: 'Sign out every session of the account.', document: graphql('mutation { logoutAll }'), status: 204 }),
];
