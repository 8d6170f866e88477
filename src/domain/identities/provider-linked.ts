// What linking a provider records, with the linking change: the security event and the
// `provider-linked` notice to the account's address (API.md section 10).
import { providerLinked } from '../emails/messages.js';
import type { AccountChange } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps } from '../context.js';

export async function recordProviderLinked(
  deps: Pick<DomainDeps, 'clock' | 'mailContext'>,
  change: AccountChange,
  link: { accountEmail: string; identity: { provider: string; email: string }; client: ClientInfo; at?: Date },
): Promise<void> {
  const at = link.at ?? deps.clock();
  const { provider, email } = link.identity;
  await change.record({ type: 'provider_linked', client: link.client, at, detail: { provider, email } });
  await change.send(link.accountEmail, providerLinked(deps.mailContext, { at, provider, providerEmail: email }));
}
