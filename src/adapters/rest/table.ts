// Every REST route, by domain.
import type { RestRoute } from './route.js';
import { accountRoutes } from './routes/accounts.js';
import { activityRoutes } from './routes/activity.js';
import { deviceRoutes } from './routes/device.js';
import { mfaRoutes } from './routes/mfa.js';
import { oauthRoutes } from './routes/oauth.js';
import { passkeyRoutes } from './routes/passkeys.js';
import { sessionRoutes } from './routes/sessions.js';
import { ssoRoutes } from './routes/sso.js';
import { tokenRoutes } from './routes/tokens.js';
import { tunnelRoutes } from './routes/tunnels.js';
import { webhookRoutes } from './routes/webhooks.js';
import { orgRoutes } from './routes/orgs.js';
import { orgInvitationRoutes } from './routes/org-invitations.js';
import { orgTokenRoutes } from './routes/org-tokens.js';
import { orgWebhookRoutes } from './routes/org-webhooks.js';

export const restRoutes: RestRoute[] = [...accountRoutes, ...activityRoutes, ...deviceRoutes, ...mfaRoutes, ...oauthRoutes, ...passkeyRoutes, ...sessionRoutes, ...ssoRoutes, ...tokenRoutes, ...tunnelRoutes, ...webhookRoutes, ...orgRoutes, ...orgInvitationRoutes, ...orgTokenRoutes, ...orgWebhookRoutes];
