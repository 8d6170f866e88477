// What the account's activity says of its OAuth grants (API.md sections 10 and 13).
import { changeAccount } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps } from '../context.js';

type ConsentDeps = Pick<DomainDeps, 'db' | 'clock' | 'events' | 'outbox' | 'mailNotify' | 'webhookNotify'>;

export async function recordConsent(
  deps: ConsentDeps,
  accountId: string,
  grant: { clientId: string; clientName: string; tunnelId: string; resource: string },
  client: ClientInfo,
): Promise<void> {
  await changeAccount(deps, accountId, async (_tx, change) => {
    await change.record({
      type: 'oauth_consent_granted',
      client,
      at: deps.clock(),
      detail: { client_id: grant.clientId.slice(0, 200), client_name: grant.clientName.slice(0, 100), tunnel_id: grant.tunnelId, resource: grant.resource },
    });
  });
}
