// PATCH /api/account/slug. Every slug rule is enforced here; a taken slug is 409.
import { conflict, unauthenticated } from '../errors.js';
import { violates } from '../../infra/db/errors.js';
import type { DomainDeps } from '../context.js';
import { assertValidSlug } from './slug.js';
import { invalidateAccountView } from './account-view.js';

export async function renameSlug(deps: DomainDeps, accountId: string, slug: unknown): Promise<{ slug: string }> {
  assertValidSlug(slug);
  const current = await deps.db.account.findUnique({ where: { id: accountId }, select: { slug: true } });
  if (!current) throw unauthenticated();
  if (current.slug === slug) return { slug };
  try {
    await deps.db.account.update({ where: { id: accountId }, data: { slug } });
  } catch (err) {
    if (violates(err, 'slug')) throw conflict('That slug is already taken.');
    throw err;
  }
  await invalidateAccountView(deps.cache, accountId);
  await deps.events.emit('account.slugChanged', { accountId, oldSlug: current.slug, newSlug: slug });
  return { slug };
}
