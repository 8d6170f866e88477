// Query.status: the same roll-up as GET /status on the zone host (same cache, same single flight).
import { statusService } from '../../../domain/status/service.js';
import type { ComponentStatus, Rollup } from '../../../domain/status/rollup.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';

const ComponentStatusRef = builder.objectRef<ComponentStatus>('StatusComponent').implement({
  description: 'One component of the status roll-up.',
  tokenScopes: TOKEN_REACH.any,
  fields: (t) => ({
    name: t.exposeString('name', { description: 'broker, api or edge.' }),
    ok: t.exposeBoolean('ok', { description: 'True when its /healthz answered 2xx (edge: always).' }),
    detail: t.exposeString('detail', { description: 'Why: ok, "status <code>" for a non-2xx reply, or the connection error.' }),
    latencyMs: t.int({
      nullable: true,
      description: "The probe's duration in milliseconds; null for edge (not probed) and an unconfigured broker.",
      resolve: (c) => c.latency_ms,
    }),
  }),
});

const StatusRollupRef = builder.objectRef<Rollup>('StatusRollup').implement({
  description: 'Health of broker, api and edge, refreshed at most once per 10 seconds.',
  tokenScopes: TOKEN_REACH.any,
  fields: (t) => ({
    status: t.exposeString('status', { description: 'ok when every component is ok, else degraded.' }),
    components: t.field({ type: [ComponentStatusRef], resolve: (r) => r.components }),
    checkedAt: t.field({
      type: 'DateTime',
      description: 'When the roll-up was last refreshed (it may predate the request).',
      resolve: (r) => new Date(r.checked_at),
    }),
  }),
});

builder.queryFields((t) => ({
  status: t.field({
    type: StatusRollupRef,
    description: 'The public status roll-up; no credential needed.',
    // Public anyway.
    tokenScopes: TOKEN_REACH.any,
    resolve: async (_root, _args, ctx) => (await statusService(ctx.deps).current()).rollup,
  }),
}));
