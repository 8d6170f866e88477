// The ways an account can sign in (SPEC 5.7, API.md section 8): a password, each linked provider
// and each passkey count. Every flow that removes one (unlinking a provider, deleting a passkey)
// reads them with lockSignInMethods (store.ts), under a lock on the account row, so two
// concurrent removals cannot both pass and leave an account nobody can open.
import type { SignInMethods } from './store.js';

/** How many ways to sign in remain. */
export const methodCount = (m: SignInMethods): number => (m.hasPassword ? 1 : 0) + m.identities.length + m.passkeys;
