// The relying party every ceremony names and checks: its id (a host name; WEBAUTHN_RP_ID, by
// default the host of APP_URL), its display name, and the page origins a ceremony may come from
// (WEBAUTHN_ORIGINS, by default the origin of APP_URL).
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/** Challenges and ceremonies live 5 minutes (API.md section 8); the browser gets the same time. */
export const CEREMONY_MS = 5 * 60_000;

/** EdDSA, ES256, RS256: what platform authenticators and security keys make. */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

/** An account holds at most this many passkeys. */
export const MAX_PASSKEYS = 20;
