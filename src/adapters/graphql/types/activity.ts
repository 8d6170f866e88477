// Security activity (API.md section 10): `me.securityEvents(first, after)`, a Relay connection,
// newest first. It pages forward only: `after` is the cursor of the last event shown.
import {
  ACTIVITY_LIMIT_DEFAULT,
  listSecurityEvents,
  type SecurityEventView,
} from '../../../domain/activity/activity-list.js';
import { SECURITY_EVENT_TYPES } from '../../../domain/activity/security-events.js';
import { badRequest, PROBLEMS, notSignedIn } from '../../../domain/errors.js';
import { builder } from '../builder.js';
import { AccountRef } from './account.js';

const SecurityEventTypeEnum = builder.enumType('SecurityEventType', { values: SECURITY_EVENT_TYPES });

const SecurityEventRef = builder.objectRef<SecurityEventView>('SecurityEvent').implement({
  description: 'One entry of the security activity log.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.field({ type: SecurityEventTypeEnum, resolve: (e) => e.type }),
    at: t.expose('at', { type: 'DateTime' }),
    ip: t.exposeString('ip', { description: 'Masked: 203.0.113.x or 2001:db8:1::x' }),
    userAgent: t.exposeString('userAgent'),
    detail: t.field({ type: 'JSONObject', resolve: (e) => e.detail }),
  }),
});

/** An edge whose cursor is made only when the document asks for it (the REST page does not). */
class EventEdge {
  constructor(readonly node: SecurityEventView) {}
  get cursor(): string {
    return this.node.cursor;
  }
}

builder.objectField(AccountRef, 'securityEvents', (t) =>
  t.connection(
    {
      type: SecurityEventRef,
      description: 'Newest first; page with `first` (1–100, default 50) and `after`.',
      resolve: async (account, args, ctx) => {
        // Only the signed-in account's own log, whatever object the field is reached through.
        if (!ctx.viewer || ctx.viewer.accountId !== account.id) throw notSignedIn();
        if (args.last != null || args.before != null) throw badRequest(PROBLEMS.invalidCursor, 'Page forward with first and after.');
        const page = await listSecurityEvents(ctx.deps, account.id, {
          limit: args.first ?? ACTIVITY_LIMIT_DEFAULT,
          before: args.after ?? null,
        });
        return {
          edges: page.events.map((node) => new EventEdge(node)),
          pageInfo: {
            hasNextPage: page.nextCursor !== null,
            hasPreviousPage: Boolean(args.after),
            startCursor: page.events[0]?.cursor ?? null,
            endCursor: page.events.at(-1)?.cursor ?? null,
          },
        };
      },
    },
    { name: 'SecurityEventConnection' },
    { name: 'SecurityEventEdge' },
  ),
);
