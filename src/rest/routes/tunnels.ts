// Tunnel paths of API.md section 4.
import type { RestRoute } from '../route.js';

export const tunnelRoutes: RestRoute[] = [];
