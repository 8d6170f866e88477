// SSO paths of API.md section 4 that map onto GraphQL (confirm-link, unlink).
import type { RestRoute } from '../route.js';

export const ssoRoutes: RestRoute[] = [];
