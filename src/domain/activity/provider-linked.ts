// What linking a provider records, in the linking transaction: the security event and the
// `provider-linked` notice to the account's address (API.md section 10).
import type { Tx } from '../../infra/mail/outbox.js';
import { providerLinked } from '../../infra/mail/templates.js';
import { recordSecurityEvent } from './security-events.js';
import type { ClientInfo, DomainDeps } from '../context.js';

export async function recordProviderLinked(
  deps: Pick<DomainDeps, 'clock' | 'outbox' | 'mailContext'>,
  tx: Tx,
  link: { accountId: string; accountEmail: string; identity: { provider: string; email: string }; client: ClientInfo; at?: Date },
): Promise<void> {
  const at = link.at ?? deps.clock();
  const { provider, email } = link.identity;
  await recordSecurityEvent(tx, { accountId: link.accountId, type: 'provider_linked', client: link.client, at, detail: { provider, email } });
  await deps.outbox.enqueue(tx, link.accountEmail, providerLinked(deps.mailContext, { at, provider, providerEmail: email }), link.accountId);
}
