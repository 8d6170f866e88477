// Revoking OAuth grants in bulk (API.md section 13a), inside the transaction of the change that
// calls for it: an account's trust changes (sign out everywhere, a password reset or change, the
// first proof of its address, deletion) or a tunnel goes (deleted, made public). Its own folder,
// apart from domain/oauth, so that accounts, sessions and tunnels can revoke grants without
// depending on the authorization server's domain (which depends on them).
import type { DbHandle } from '../store.js';

export const GRANT_KIND = 'Grant';

/**
 * Every OAuth model of an account (its grants, codes, tokens, sessions): at deletion, and when
 * the account's trust changes (sign out everywhere, a password reset or change, the first proof
 * of its address: API.md section 13a).
 */
export async function deleteAccountModels(db: DbHandle, accountId: string): Promise<void> {
  await db.oAuthModel.deleteMany({ where: { accountId } });
}

/**
 * The tunnel's grants and everything they issued: the tunnel is gone or public again. Grants from
 * before grants named their tunnel are found by its /mcp URLs.
 */
export async function deleteTunnelGrants(db: DbHandle, tunnelId: string, resources: readonly string[]): Promise<void> {
  const grants = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM oauth_models WHERE kind = ${GRANT_KIND}
    AND (tunnel_id = ${tunnelId} OR (tunnel_id IS NULL AND payload->'resources' ?| ${[...resources]}::text[]))`;
  if (grants.length === 0) return;
  await deleteGrants(db, grants.map((g) => g.id));
}

/** Grants and everything they issued (codes, refresh tokens), in one statement. */
export async function deleteGrants(db: DbHandle, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await db.oAuthModel.deleteMany({ where: { OR: [{ kind: GRANT_KIND, id: { in: [...ids] } }, { grantId: { in: [...ids] } }] } });
}
