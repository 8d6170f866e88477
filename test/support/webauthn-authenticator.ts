// A software WebAuthn authenticator for tests over HTTP: what a browser and a platform
// authenticator together hand to the server. ES256 keys from node:crypto, "none" attestation,
// the attestation object in CBOR (a tiny encoder below), authenticator data with the UP, UV and
// AT flags and a signature counter. Every knob a test needs to break one thing at a time
// (origin, RP id, flags, counter, user handle, challenge) is an override.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// ---- CBOR (RFC 8949), only what WebAuthn needs: unsigned/negative ints, bytes, text, arrays, maps.
type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(length, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(length, 1);
  return b;
}

export function cborEncode(value: Cbor): Buffer {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error('CBOR: integers only');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cborEncode)]);
  const entries: [Cbor, Cbor][] = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cborEncode(k), cborEncode(v)])]);
}

// ---- WebAuthn pieces.
const b64url = (b: Uint8Array): string => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40, ED: 0x80 } as const;

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: Buffer;
  counter: number;
}

/** What the server sends for a ceremony (the parts the authenticator reads). */
export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
  excludeCredentials?: { id: string }[];
}
export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export interface CeremonyOverrides {
  /** The page origin the browser reports (default: the authenticator's). */
  origin?: string;
  /** The RP id the authenticator hashes (default: from the options). */
  rpId?: string;
  /** Authenticator data flags (default UP|UV, plus AT on registration). */
  flags?: number;
  /** The signature counter to report (default: the previous one plus one). */
  counter?: number;
  /** The challenge the browser reports (default: the options'). */
  challenge?: string;
  /** Sign-in: which credential to use (default: the first one for the RP id). */
  credentialId?: string;
  /** Sign-in: the user handle to report (default: the one it was registered with). */
  userHandle?: string | null;
}

export interface RegistrationResponse {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, unknown>;
  authenticatorAttachment: 'platform';
}

export interface AuthenticationResponse {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  clientExtensionResults: Record<string, unknown>;
  authenticatorAttachment: 'platform';
}

export class SoftwareAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(
    /** The origin the "browser" runs on, e.g. https://app.example.test. */
    readonly origin: string,
    /** 16 bytes; zeros like most software and "none" attestation authenticators. */
    readonly aaguid: Buffer = Buffer.alloc(16),
  ) {}

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter >>> 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(): a new ES256 discoverable credential. */
  register(options: CreationOptions, o: CeremonyOverrides = {}): RegistrationResponse {
    const rpId = o.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (this.credentials.some((c) => excluded.has(b64url(c.id)))) {
      throw Object.assign(new Error('The authenticator was previously registered'), { name: 'InvalidStateError' });
    }
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    const cose = cborEncode(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = randomBytes(32);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const counter = o.counter ?? 0;
    const authData = this.authData(
      rpId,
      o.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT,
      counter,
      Buffer.concat([this.aaguid, idLength, id, cose]),
    );
    const attestationObject = cborEncode({ fmt: 'none', attStmt: {}, authData });
    this.credentials.push({ id, privateKey, rpId, userHandle: Buffer.from(options.user.id, 'base64url'), counter });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', o.challenge ?? options.challenge, o.origin ?? this.origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: { credProps: { rk: true } },
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): an assertion by a discoverable credential for the RP id. */
  authenticate(options: RequestOptions, o: CeremonyOverrides = {}): AuthenticationResponse {
    const rpId = o.rpId ?? options.rpId ?? new URL(this.origin).hostname;
    const credential = o.credentialId
      ? this.credentials.find((c) => b64url(c.id) === o.credentialId)
      : this.credentials.find((c) => c.rpId === (options.rpId ?? rpId));
    if (!credential) throw Object.assign(new Error('No credential for this RP'), { name: 'NotAllowedError' });
    credential.counter = o.counter ?? credential.counter + 1;
    const authData = this.authData(rpId, o.flags ?? FLAGS.UP | FLAGS.UV, credential.counter);
    const clientDataJSON = this.clientData('webauthn.get', o.challenge ?? options.challenge, o.origin ?? this.origin);
    // ECDSA over authenticatorData || SHA-256(clientDataJSON); node's EC signatures are DER, as WebAuthn wants.
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    const userHandle = o.userHandle === undefined ? b64url(credential.userHandle) : o.userHandle;
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
