// oidc-provider's storage contract (its Adapter interface) on this project's database: every model
// it keeps (grants, codes, refresh tokens, interactions, sessions, registered clients, …) is one
// row of oauth_models (src/domain/oauth/store.ts), so they survive restarts and every instance
// sees the same ones. Expiry is the provider's own (seconds from now, on the real clock, which is
// the one the provider checks tokens against); a consumed model is answered with `consumed`, as
// the provider needs to detect a code or refresh token used twice.
//
// Consuming is atomic: of two requests that present one authorization code or refresh token at
// the same moment (on any instance), one consumes it; the other finds it consumed meanwhile, which
// is reuse: the grant and everything it issued are revoked and the request answers invalid_grant
// (API.md section 13a).
//
// A model's id is, for most kinds, the credential itself (an authorization code, a refresh token,
// the provider's session cookie, an interaction's uid): those are stored only as their SHA-256,
// and the payload's copy (`jti`) is left out and put back on reading, when the presented value is
// known. Grants and clients keep their ids: a grant id is no credential (it rides in access tokens
// and names grants in the console), a client id is public.
import type { Adapter, AdapterPayload, errors as OidcErrors } from 'oidc-provider';
import { hashToken } from '../../infra/crypto/tokens.js';
import type { Db } from '../../domain/store.js';
import type { Cipher } from '../../infra/crypto/cipher.js';
import { OPERATOR_CLIENT_FLAG } from '../../domain/oauth/clients.js';
import { UNUSED_CLIENT_TTL_MS } from '../../domain/oauth/registration.js';
import { consumeModel, deleteGrantAndModels, destroyGrantModels, destroyModel, findModel, findModelBy, grantIdOf, upsertModel, type ModelRow } from '../../domain/oauth/store.js';

const PLAIN_IDS = new Set(['Grant', 'Client']);
/** Credentials that work once: a second consumption is reuse. */
const SINGLE_USE = new Set(['AuthorizationCode', 'RefreshToken']);

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * `revoked` runs after a grant was revoked through the provider (reuse, RFC 7009), so cached
 * introspection answers stop vouching for its tokens (domain/oauth/introspection-cache.ts).
 */
export function modelAdapter(db: Db, errors: typeof OidcErrors, cipher: Cipher, revoked: () => Promise<void>): (kind: string) => Adapter {
  return (kind) => {
    const plain = PLAIN_IDS.has(kind);
    /** The stored id: the credential's hash, or the id itself for grants and clients. */
    const keyOf = (id: string) => (plain ? id : hashToken(id));
    const stored = (id: string, payload: AdapterPayload): Record<string, unknown> => {
      if (plain || payload.jti !== id) return payload as Record<string, unknown>;
      const { jti: _value, ...rest } = payload;
      return rest;
    };
    /** The payload as the provider wrote it: its id back in `jti` when it was left out. */
    const read = (row: ModelRow | null, id: string | null): AdapterPayload | undefined => {
      if (row === null) return undefined;
      // An operator-registered client's secret is stored sealed (domain/oauth/clients.ts).
      if (kind === 'Client' && row.payload[OPERATOR_CLIENT_FLAG] === true && typeof row.payload.client_secret === 'string') {
        return { ...row.payload, client_secret: cipher.open(row.payload.client_secret) } as AdapterPayload;
      }
      return { ...row.payload, ...(id !== null && !plain && row.payload.jti === undefined ? { jti: id } : {}), ...(row.consumed ? { consumed: true } : {}) } as AdapterPayload;
    };
    return {
      async upsert(id, payload, expiresIn) {
        await upsertModel(db, {
          kind,
          id: keyOf(id),
          payload: stored(id, payload),
          grantId: str(payload.grantId),
          uid: str(payload.uid),
          userCode: str(payload.userCode),
          accountId: str(payload.accountId),
          // A dynamically registered client lives 30 days unless it gets tokens (keepClient).
          expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : kind === 'Client' ? new Date(Date.now() + UNUSED_CLIENT_TTL_MS) : null,
        });
      },
      async find(id) {
        return read(await findModel(db, kind, keyOf(id), new Date()), id);
      },
      // By uid or user code the id is not presented: the provider reads the model's other fields.
      async findByUid(uid) {
        return read(await findModelBy(db, kind, { uid }, new Date()), null);
      },
      async findByUserCode(userCode) {
        return read(await findModelBy(db, kind, { userCode }, new Date()), null);
      },
      async consume(id) {
        const key = keyOf(id);
        if ((await consumeModel(db, kind, key, new Date())) || !SINGLE_USE.has(kind)) return;
        const grantId = await grantIdOf(db, kind, key);
        if (grantId !== null) {
          await deleteGrantAndModels(db, grantId);
          await revoked();
        }
        throw new errors.InvalidGrant(`${kind === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`);
      },
      async destroy(id) {
        await destroyModel(db, kind, keyOf(id));
        if (kind === 'Grant') await revoked();
      },
      async revokeByGrantId(grantId) {
        await destroyGrantModels(db, grantId);
        await revoked();
      },
    };
  };
}
