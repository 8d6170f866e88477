// Names that address a tunnel from outside (an account's slug: every `<sub>--<slug>.ZONE` host;
// a custom domain) are held for 30 days after a rename or a deletion frees them. Until then no
// other account can claim them, so an MCP client still pinned to the old host never reaches a
// stranger's server. The account that freed a name may take it back at once.
import type { Db } from '../../infra/db/client.js';
import type { Tx } from '../../infra/mail/outbox.js';
import { conflict } from '../errors.js';

export const NAME_HOLD_MS = 30 * 24 * 3600_000;

export type NameKind = 'slug' | 'domain';

export async function releaseNames(tx: Tx | Db, kind: NameKind, names: string[], accountId: string, now: Date): Promise<void> {
  const holdUntil = new Date(now.getTime() + NAME_HOLD_MS);
  for (const name of new Set(names)) {
    await tx.releasedName.upsert({
      where: { kind_name: { kind, name } },
      create: { kind, name, accountId, releasedAt: now, holdUntil },
      update: { accountId, releasedAt: now, holdUntil },
    });
  }
}

/** True when another account freed this name less than 30 days ago. */
export async function isHeldForAnother(db: Tx | Db, kind: NameKind, name: string, accountId: string | null, now: Date): Promise<boolean> {
  const held = await db.releasedName.findUnique({ where: { kind_name: { kind, name } }, select: { accountId: true, holdUntil: true } });
  return held !== null && held.holdUntil > now && held.accountId !== accountId;
}

export async function assertNameFree(db: Tx | Db, kind: NameKind, name: string, accountId: string, now: Date): Promise<void> {
  if (await isHeldForAnother(db, kind, name, accountId, now)) {
    throw conflict(
      kind === 'slug'
        ? 'That slug was released recently and is held for 30 days; choose another.'
        : 'That custom domain was released recently and is held for 30 days.',
    );
  }
}
