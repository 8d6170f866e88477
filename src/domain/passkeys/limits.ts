// Limits of the passkey flows (counted in the shared cache like every other limit).
import type { Limit } from '../limits/rate-limit.js';

/** Public sign-in options per client network: each stores a challenge for 5 minutes. */
export const LIMITS_PASSKEY_OPTIONS_PER_NETWORK: Limit = { name: 'passkey-options-ip', max: 300, windowMs: 15 * 60_000 };
