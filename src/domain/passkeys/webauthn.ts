// @simplewebauthn/server is loaded on the first passkey ceremony rather than at start-up: it and
// its ASN.1/COSE dependencies hold resident memory that most instances rarely need.
type WebAuthn = typeof import('@simplewebauthn/server');

let loaded: Promise<WebAuthn> | null = null;

export function webauthn(): Promise<WebAuthn> {
  loaded ??= import('@simplewebauthn/server');
  return loaded;
}
