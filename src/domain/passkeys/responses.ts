// The browser's ceremony results arrive as untrusted JSON. These checks only make sure the shape
// is what @simplewebauthn/server reads (strings where it decodes base64url), so a malformed body
// fails as a failed verification instead of an internal error; the library verifies the rest.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isB64Url = (v: unknown, max = 16_384): v is string => typeof v === 'string' && v.length <= max && /^[A-Za-z0-9_-]*={0,2}$/.test(v);

const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** The transports an authenticator reported, kept only when known (they are hints to browsers). */
export function knownTransports(v: unknown): string[] {
  return Array.isArray(v) ? [...new Set(v.filter((t): t is string => typeof t === 'string' && TRANSPORTS.has(t)))] : [];
}

function credentialBase(v: unknown): (Record<string, unknown> & { id: string; response: Record<string, unknown> }) | null {
  if (!isObject(v) || !isB64Url(v.id, 1400) || v.id.length === 0 || v.type !== 'public-key' || !isObject(v.response)) return null;
  if (v.rawId !== undefined && !isB64Url(v.rawId, 1400)) return null;
  return v as Record<string, unknown> & { id: string; response: Record<string, unknown> };
}

export function asRegistrationResponse(v: unknown): RegistrationResponseJSON | null {
  const c = credentialBase(v);
  if (!c || !isB64Url(c.response.clientDataJSON) || !isB64Url(c.response.attestationObject)) return null;
  return {
    id: c.id,
    rawId: typeof c.rawId === 'string' ? c.rawId : c.id,
    type: 'public-key',
    response: {
      clientDataJSON: c.response.clientDataJSON,
      attestationObject: c.response.attestationObject,
      transports: knownTransports(c.response.transports),
    },
    clientExtensionResults: isObject(c.clientExtensionResults) ? c.clientExtensionResults : {},
  };
}

export function asAuthenticationResponse(v: unknown): AuthenticationResponseJSON | null {
  const c = credentialBase(v);
  const r = c?.response;
  if (!c || !r || !isB64Url(r.clientDataJSON) || !isB64Url(r.authenticatorData) || !isB64Url(r.signature)) return null;
  if (r.userHandle !== undefined && r.userHandle !== null && !isB64Url(r.userHandle, 256)) return null;
  return {
    id: c.id,
    rawId: typeof c.rawId === 'string' ? c.rawId : c.id,
    type: 'public-key',
    response: {
      clientDataJSON: r.clientDataJSON,
      authenticatorData: r.authenticatorData,
      signature: r.signature,
      ...(typeof r.userHandle === 'string' ? { userHandle: r.userHandle } : {}),
    },
    clientExtensionResults: isObject(c.clientExtensionResults) ? c.clientExtensionResults : {},
  };
}

/** A short reason from the verifier for the client, never a stack. */
export function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : 'verification failed';
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
