// The service-wide bounds on guessing a device user code (API.md section 12), beside the
// per-network limit of LIMITS.deviceCodeGuesses, which an attacker with many networks multiplies.
// Both are counted with the shared limiter (limits/rate-limit.ts): before anything is looked at,
// never failing open (while the cache is unreachable, each instance counts in process).
//
// A user code is 8 letters of 20: N = 20^8 ≈ 2.56·10^10 codes, each live 10 minutes. With at most
// L codes live at once and at most G wrong codes tried during any 10 minutes, the chance that any
// wrong code hits any live one in that time is at most G·L/N (each guess hits one of L of N).
// Both are fixed-window counts of one minute: an interval of 10 minutes meets at most 11 windows,
// so L ≤ 11·20 = 220 and G ≤ 11·10 = 110, and G·L/N ≤ 24,200 / 2.56·10^10 ≈ 9.5·10^-7 < 10^-6.
// The price: past either bound, everyone waits for the minute to end (429 with Retry-After).
// guessingBound() (device-grant.ts) computes the bound from the values in force.
import type { Limit } from '../limits/rate-limit.js';

const MINUTE = 60_000;

/** The subject of a service-wide limit: one counter for every network. */
export const EVERYWHERE = 'all';

/**
 * Wrong user codes per minute, all networks together; a right code is taken back. Tests of other
 * rules may raise `max` (and restore it), as the suite is one client trying many codes.
 */
export const DEVICE_WRONG_CODES_EVERYWHERE: Limit = { name: 'device-code-guess-all', max: 10, windowMs: MINUTE };

/** Device authorization requests per minute, all networks together: each makes a code live. */
export const DEVICE_REQUESTS_EVERYWHERE: Limit = { name: 'device-request-all', max: 20, windowMs: MINUTE };
