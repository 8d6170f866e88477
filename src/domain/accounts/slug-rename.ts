// PATCH /api/account/slug. Every slug rule is enforced here; a taken slug is 409.
import { conflict, PROBLEMS, notSignedIn } from '../errors.js';
import { violates } from '../../infra/db/errors.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { changeAccount } from '../activity/account-change.js';
import { assertValidSlug } from './slug.js';
import { readAccountState, setSlug } from './store.js';
import { claimName, lockNames, releaseNames } from '../tunnels/released-names.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'clock' | 'db' | 'events' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

export async function renameSlug(
  deps: FlowDeps,
  accountId: string,
  slug: unknown,
  client: ClientInfo | null,
): Promise<{ slug: string }> {
  assertValidSlug(slug);
  const current = await readAccountState(deps.db, accountId);
  if (!current) throw notSignedIn();
  if (current.slug === slug) return { slug };
  const now = deps.clock();
  try {
    await changeAccount(deps, accountId, async (tx, change) => {
      // Both names locked in one order first: two renames that swap slugs queue, never deadlock.
      await lockNames(tx, 'slug', [slug, current.slug]);
      await claimName(tx, 'slug', slug, accountId, now);
      await setSlug(tx, accountId, slug);
      // Every `<sub>--<old slug>` host is held for this account for 30 days.
      await releaseNames(tx, 'slug', [current.slug], accountId, now);
      await change.record({ type: 'slug_changed', client, at: now, detail: { from: current.slug, to: slug } });
    });
  } catch (err) {
    if (violates(err, 'slug')) throw conflict(PROBLEMS.slugTaken, 'That slug is already taken.', 'slug');
    throw err;
  }
  await deps.events.emit('account.slugChanged', { accountId, oldSlug: current.slug, newSlug: slug });
  return { slug };
}
