// A refresh token presented twice at the same moment (API.md section 13a, "Once means once"). MCP
// clients race their own refreshes (two windows, two processes of one client); oidc-provider sees
// the second presentation of a rotated token as reuse and revokes the grant. So presentations of
// one refresh token take turns (a lock per token in the shared cache, every instance), and the
// first one's rotation is remembered for 60 seconds: the successor refresh token sealed with
// ENCRYPTION_KEY, for the same public client. A second presentation within that time, by that
// client, while the successor is still unused, answers a new access token and the same successor:
// the chain never forks. Anything else goes to the provider, which treats it as reuse. This runs
// inside the provider, around its refresh_token handler (token-endpoint.ts).
//
// If the cache cannot be reached, presentations go to the provider without taking turns: two at
// once then revoke the grant (the storage adapter consumes a token once, atomically), which fails
// closed.
import { randomUUID } from 'node:crypto';
import { decodeJwt, importJWK, SignJWT, type JWTPayload } from 'jose';
import type { DomainDeps } from '../../domain/context.js';
import { hashToken } from '../../infra/crypto/tokens.js';
import type { SigningKey } from '../../domain/oauth/signing-keys.js';
import { findModel } from '../../domain/oauth/store.js';

/** A successful token response's body, as the provider's handler leaves it. */
export interface TokenBody {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  [member: string]: unknown;
}

interface Rotation {
  clientId: string;
  /** The successor refresh token, sealed. */
  successor: string;
  /** The first answer's access token claims, to issue another like it. */
  claims: JWTPayload;
  expiresIn: number;
  scope: string | undefined;
}

export const REFRESH_GRACE_MS = 60_000;
const LOCK_MS = 10_000;
const WAIT_MS = 5_000;
const POLL_MS = 15;

type RotationDeps = Pick<DomainDeps, 'cache' | 'cipher' | 'db' | 'logger'>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RefreshRotations {
  constructor(
    private readonly deps: RotationDeps,
    private readonly signingKey: () => SigningKey,
  ) {}

  /**
   * Exchanges `refreshToken` for the public client `clientId` (null: the client authenticated,
   * which gets no grace), through `forward` (the provider's handler: its answer, or it throws the
   * refusal) unless a rotation of it is remembered. Null when the token stayed busy (another
   * presentation held it for 5 s): the caller answers 503 with Retry-After.
   */
  async exchange(refreshToken: string, clientId: string | null, forward: () => Promise<TokenBody>): Promise<TokenBody | null> {
    const hash = hashToken(refreshToken);
    const lockKey = `oauth:rt:lock:${hash}`;
    const rotationKey = `oauth:rt:next:${hash}`;
    const owner = randomUUID();
    let locked: boolean;
    try {
      locked = await this.acquire(lockKey, owner);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'refresh without taking turns: the cache is unreachable');
      return forward();
    }
    if (!locked) return null;
    try {
      const remembered = await this.deps.cache.get(rotationKey);
      if (remembered !== null) {
        const again = clientId === null ? null : await this.again(JSON.parse(remembered) as Rotation, clientId);
        // Awaited here, so the turn is held until the provider has answered.
        return again ?? (await forward());
      }
      const answer = await forward();
      // Remembering is for the racing presentation; failing to, it would be reuse (fails closed),
      // and this answer still goes out: its refresh token is the only live one.
      if (clientId !== null) await this.remember(rotationKey, clientId, answer).catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message }, 'refresh rotation not remembered'));
      return answer;
    } finally {
      await this.deps.cache.del(lockKey).catch(() => undefined);
    }
  }

  private async acquire(key: string, owner: string): Promise<boolean> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      if (await this.deps.cache.setIfAbsent(key, owner, LOCK_MS)) return true;
      if (Date.now() >= deadline) return false;
      await sleep(POLL_MS);
    }
  }

  private async remember(key: string, clientId: string, body: TokenBody): Promise<void> {
    if (typeof body.refresh_token !== 'string' || typeof body.access_token !== 'string') return;
    const rotation: Rotation = {
      clientId,
      successor: this.deps.cipher.seal(body.refresh_token),
      claims: decodeJwt(body.access_token),
      expiresIn: typeof body.expires_in === 'number' ? body.expires_in : 3600,
      scope: typeof body.scope === 'string' ? body.scope : undefined,
    };
    await this.deps.cache.set(key, JSON.stringify(rotation), REFRESH_GRACE_MS);
  }

  /** The remembered rotation's answer again, with a new access token; null when it does not apply. */
  private async again(rotation: Rotation, clientId: string): Promise<TokenBody | null> {
    if (rotation.clientId !== clientId) return null;
    const successor = this.deps.cipher.open(rotation.successor);
    // Used meanwhile (or revoked): the old token is plain reuse now.
    const live = await findModel(this.deps.db, 'RefreshToken', hashToken(successor), new Date());
    if (live === null || live.consumed) return null;
    const key = this.signingKey();
    const { jti: _jti, iat: _iat, exp: _exp, nbf: _nbf, ...claims } = rotation.claims;
    const accessToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(`${rotation.expiresIn}s`)
      .sign(await importJWK(key.privateJwk, key.alg));
    return { access_token: accessToken, expires_in: rotation.expiresIn, token_type: 'Bearer', refresh_token: successor, ...(rotation.scope ? { scope: rotation.scope } : {}) };
  }
}
