// Session paths of API.md section 4.
import { signedIn, type RestRoute } from '../route.js';

interface SessionData {
  id: string;
  userAgent: string;
  ip: string;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
}

export const sessionRoutes: RestRoute[] = [
  {
    method: 'GET',
    url: '/api/sessions',
    document: 'query { me { sessions { id userAgent ip createdAt lastSeenAt current } } }',
    status: 200,
    respond: (d) => ({
      sessions: signedIn(d.me as { sessions: SessionData[] } | null).sessions.map((s) => ({
        id: s.id,
        user_agent: s.userAgent,
        ip: s.ip,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
        current: s.current,
      })),
    }),
  },
  {
    method: 'DELETE',
    url: '/api/sessions/:id',
    document: 'mutation ($id: ID!) { revokeSession(id: $id) }',
    params: { id: 'id' },
    status: 204,
  },
  { method: 'POST', url: '/auth/logout', document: 'mutation { logout }', status: 204 },
  { method: 'POST', url: '/auth/logout-all', document: 'mutation { logoutAll }', status: 204 },
];
