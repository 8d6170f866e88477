// Imports every type file (each registers its types on the builder) and builds the schema.
import { builder } from './builder.js';
import './types/account.js';
import './types/session.js';
import './types/sso.js';
import './types/mfa.js';
import './types/tunnel.js';
import './types/status.js';
import './types/passkeys.js';
import './types/reauthentication.js';
import './types/activity.js';
import './types/providers.js';
import './types/service-tokens.js';
import './types/device.js';
import './types/oauth.js';
import './types/webhooks.js';
import './types/organization.js';
import './types/org-tokens.js';
import './types/org-webhooks.js';
import './types/org-invitations.js';

export const schema = builder.toSchema({ sortSchema: true });
