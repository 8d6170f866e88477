// The OAuth redirect endpoints (GET /auth/oauth/<provider>/start and /callback); filled by the SSO work.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

export function registerOAuthRoutes(_app: FastifyInstance, _deps: Deps): void {}
