// A signed-in account's passkeys: rename and remove (the list is Account.passkeys on the graph).
// Another account's passkey answers exactly like an unknown one (404). Removing the last way to
// sign in is refused (SPEC 5.7, API.md section 8), under the same account-row lock that unlinking
// a provider takes, so the two cannot race each other into an account nobody can open.
import { changeAccount } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { badRequest, notFound, PROBLEMS } from '../errors.js';
import { methodCount } from '../identities/sign-in-methods.js';
import { lockSignInMethods } from '../identities/store.js';
import { passkeyName } from './names.js';
import { deletePasskeyRow, findAccountPasskey, selectPasskeys, setPasskeyName, type PasskeyRow } from './store.js';
import { isUuid } from '../ids.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'clock' | 'db' | 'events' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

export const LAST_PASSKEY_MESSAGE =
  'This passkey is your only way to sign in. Set a password (use "Forgot password") or link a login provider before removing it.';

const noSuchPasskey = () => notFound(PROBLEMS.passkeyNotFound, 'No such passkey.');

export function listPasskeys(deps: Pick<DomainDeps, 'db'>, accountId: string): Promise<PasskeyRow[]> {
  return selectPasskeys(deps.db, accountId);
}

export async function renamePasskey(deps: Pick<DomainDeps, 'db'>, accountId: string, id: string, rawName: string): Promise<PasskeyRow> {
  if (!isUuid(id)) throw noSuchPasskey();
  const name = passkeyName(rawName);
  const row = await setPasskeyName(deps.db, accountId, id, name);
  if (!row) throw noSuchPasskey();
  return row;
}

export async function deletePasskey(deps: FlowDeps, accountId: string, id: string, client: ClientInfo): Promise<void> {
  if (!isUuid(id)) throw noSuchPasskey();
  await changeAccount(deps, accountId, async (tx, change) => {
    const methods = await lockSignInMethods(tx, accountId);
    const passkey = methods ? await findAccountPasskey(tx, accountId, id) : null;
    if (!methods || !passkey) throw noSuchPasskey();
    if (methodCount(methods) <= 1) throw badRequest(PROBLEMS.lastSignInMethod, LAST_PASSKEY_MESSAGE);
    await deletePasskeyRow(tx, passkey.id);
    await change.record({ type: 'passkey_removed', client, at: deps.clock(), detail: { passkey_id: passkey.id, name: passkey.name } });
  });
}
