// GET /api/account/activity (API.md section 10): the security activity, newest first, on the
// same connection the dashboard pages through.
import { graphql } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { ActivityPage } from '../schemas.js';

export const activityRoutes: RestRoute[] = [
  route({
    method: 'GET',
    url: '/api/account/activity',
    summary: 'The security activity, newest first (90 days).',
    operationId: 'listActivity',
    errors: { 400: 'A bad limit (1..100) or cursor.' },
    response: ActivityPage,
    document: graphql(`
      query ($first: Int, $after: String) {
        me {
          securityEvents(first: $first, after: $after) {
            edges { node { id type at ip userAgent detail } }
            pageInfo { hasNextPage endCursor }
          }
        }
      }
    `),
    query: { limit: 'first', before: 'after' },
    status: 200,
    respond: (d) => {
      const connection = signedIn(d.me).securityEvents;
      return {
        events: connection.edges.map(({ node }) => ({
          id: node.id,
          type: node.type,
          at: node.at,
          ip: node.ip,
          user_agent: node.userAgent,
          detail: node.detail,
        })),
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
];
