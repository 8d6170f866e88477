// oidc-provider's storage contract (its Adapter interface) on this project's database: every model
// it keeps (grants, codes, refresh tokens, interactions, sessions, registered clients, …) is one
// row of oauth_models (src/domain/oauth/store.ts), so they survive restarts and every instance
// sees the same ones. Expiry is the provider's own (seconds from now, on the real clock, which is
// the one the provider checks tokens against); a consumed model is answered with `consumed`, as
// the provider needs to detect a code or refresh token used twice.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../domain/store.js';
import { UNUSED_CLIENT_TTL_MS } from '../../domain/oauth/registration.js';
import { consumeModel, destroyGrantModels, destroyModel, findModel, findModelBy, upsertModel, type ModelRow } from '../../domain/oauth/store.js';

const payloadOf = (row: ModelRow | null): AdapterPayload | undefined =>
  row === null ? undefined : ({ ...row.payload, ...(row.consumed ? { consumed: true } : {}) } as AdapterPayload);

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function modelAdapter(db: Db): (kind: string) => Adapter {
  return (kind) => ({
    async upsert(id, payload, expiresIn) {
      await upsertModel(db, {
        kind,
        id,
        payload: payload as Record<string, unknown>,
        grantId: str(payload.grantId),
        uid: str(payload.uid),
        userCode: str(payload.userCode),
        accountId: str(payload.accountId),
        // A dynamically registered client lives 30 days unless it gets tokens (keepClient).
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : kind === 'Client' ? new Date(Date.now() + UNUSED_CLIENT_TTL_MS) : null,
      });
    },
    async find(id) {
      return payloadOf(await findModel(db, kind, id, new Date()));
    },
    async findByUid(uid) {
      return payloadOf(await findModelBy(db, kind, { uid }, new Date()));
    },
    async findByUserCode(userCode) {
      return payloadOf(await findModelBy(db, kind, { userCode }, new Date()));
    },
    async consume(id) {
      await consumeModel(db, kind, id, new Date());
    },
    async destroy(id) {
      await destroyModel(db, kind, id);
    },
    async revokeByGrantId(grantId) {
      await destroyGrantModels(db, grantId);
    },
  });
}
