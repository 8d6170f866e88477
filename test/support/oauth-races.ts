// API.md section 13a, "Once means once, even at the same moment", as scenarios that one instance
// (test/api/oauth/races.test.ts) and two behind a balancer (test/scale/oauth-scale.test.ts) both
// run: requests presenting one authorization code or one refresh token, released together
// (released.ts), spread over the servers given.
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { hashToken } from '../../src/infra/crypto/tokens.js';
import { fromIp, randomIp, signedIn, type SignedIn } from './accounts.js';
import type { Reply } from './http.js';
import { api, form, pkce, REDIRECT, register } from './oauth.js';
import { heldForm, released } from './released.js';
import type { Server } from './server.js';
import { createTunnel } from './tunnels.js';

export interface RaceSetting {
  /** Where accounts, tunnels and consent go, and whose database the checks read (any instance, or the balancer). */
  setup: Server;
  /** Where the raced requests go: request i to targets[i % targets.length]; introspection asks each. */
  targets: readonly Server[];
  /** The servers' INTERNAL_API_TOKEN. */
  internalToken: string;
}

export type Person = SignedIn & { headers: Record<string, string> };

export async function person(s: Server): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: true })), headers };
}

export interface ApprovedCode {
  resource: string;
  clientId: string;
  /** The token request that exchanges the code. */
  exchange: Record<string, string>;
}

/** An oauth tunnel of `owner`, a registered client, its request approved: the code, not yet exchanged. */
export async function approvedCode(s: Server, owner: Person): Promise<ApprovedCode> {
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const resource = `https://${tunnel.host}/mcp`;
  const client = await register(s);
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'st-1', scope: 'mcp', resource });
  // From a network of its own: /oauth/authorize is limited per network (section 13a).
  const r = await s.request(`/oauth/authorize?${q}`, { headers: fromIp(randomIp()) });
  assert.equal(r.status, 302, `${r.status} ${r.text}`);
  const id = new URL(String(r.headers.location)).searchParams.get('request');
  assert.ok(id, String(r.headers.location));
  const approved = await api(owner, `/api/oauth/requests/${id}/approve`, 'POST', s);
  assert.equal(approved.status, 200, approved.text);
  const code = new URL(approved.json.redirect_to).searchParams.get('code');
  assert.ok(code, approved.json.redirect_to);
  return {
    resource,
    clientId: client.client_id,
    exchange: { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource },
  };
}

const statuses = (replies: readonly Reply[]) => replies.map((r) => `${r.status} ${r.text}`).join('\n');

export const refreshRequest = (token: string, clientId: string) => ({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

export function grantIdOf(accessToken: string): string {
  const grantId = decodeJwt(accessToken).grant_id;
  assert.equal(typeof grantId, 'string', 'the access token names its grant');
  return grantId as string;
}

/** Asks every target: the token's introspection is `active` as expected. */
export async function assertIntrospects(setting: RaceSetting, accessToken: string, active: boolean, what: string): Promise<void> {
  for (const target of setting.targets) {
    const r = await form(target, '/oauth/introspect', { token: accessToken }, { authorization: `Bearer ${setting.internalToken}` });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.active, active, `${what}, introspected at ${target.url}: ${r.text}`);
  }
}

/** The refresh is refused with invalid_grant (and issues nothing). */
export async function assertRefreshRefused(s: Server, token: string, clientId: string, what: string): Promise<void> {
  const r = await form(s, '/oauth/token', refreshRequest(token, clientId));
  assert.equal(r.status, 400, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json.error, 'invalid_grant', `${what}: ${r.text}`);
  assert.equal(r.json.access_token, undefined);
}

/**
 * The grant is gone from the database, and (unless `onlyTheGrant`) everything it issued. A code
 * race leaves the winner's refresh token row behind when the winner stores it after the loser
 * revoked the grant: unusable (its grant is gone: invalid_grant), purged when it expires.
 */
export async function assertGrantGone(setting: RaceSetting, grantId: string, what: string, onlyTheGrant = false): Promise<void> {
  const where = onlyTheGrant ? { kind: 'Grant', id: grantId } : { OR: [{ kind: 'Grant', id: grantId }, { grantId }] };
  const left = await setting.setup.deps.db.oAuthModel.findMany({ where, select: { kind: true, consumedAt: true } });
  assert.deepEqual(left, [], `${what}: nothing of the grant is left`);
}

/**
 * `n` exchanges of one code released together: exactly one 200, the others 400 invalid_grant,
 * and what the one issued is revoked (its refresh token refused, its access token inactive).
 */
export async function raceCodeExchange(setting: RaceSetting, owner: Person, n: number): Promise<void> {
  const { exchange, clientId } = await approvedCode(setting.setup, owner);
  const { targets } = setting;
  const replies = await released(Array.from({ length: n }, (_, i) => heldForm(targets[i % targets.length]!.url, '/oauth/token', exchange)));
  const won = replies.filter((r) => r.status === 200);
  assert.equal(won.length, 1, `exactly one of ${n} exchanges gets tokens:\n${statuses(replies)}`);
  for (const r of replies.filter((x) => x.status !== 200)) {
    assert.equal(r.status, 400, statuses(replies));
    assert.equal(r.json.error, 'invalid_grant', statuses(replies));
  }
  const tokens = won[0]!.json;
  assert.ok(tokens.access_token && tokens.refresh_token, won[0]!.text);
  const grantId = grantIdOf(tokens.access_token);
  for (const target of targets) await assertRefreshRefused(target, tokens.refresh_token, clientId, "the winner's refresh token");
  await assertIntrospects(setting, tokens.access_token, false, "the winner's access token");
  await assertGrantGone(setting, grantId, 'a code used twice', true);
}

/**
 * `n` refreshes with one refresh token by its client, released together: all 200 with one
 * successor (the chain does not fork) and an access token each, all active; the successor works;
 * the original presented after that is reuse and revokes the grant.
 */
export async function raceRefresh(setting: RaceSetting, owner: Person, n: number): Promise<void> {
  const { setup, targets } = setting;
  const { exchange, clientId } = await approvedCode(setup, owner);
  const first = await form(setup, '/oauth/token', exchange);
  assert.equal(first.status, 200, first.text);
  const original = first.json.refresh_token as string;
  const grantId = grantIdOf(first.json.access_token);

  const replies = await released(Array.from({ length: n }, (_, i) => heldForm(targets[i % targets.length]!.url, '/oauth/token', refreshRequest(original, clientId))));
  for (const r of replies) assert.equal(r.status, 200, `every presentation by the same client is answered:\n${statuses(replies)}`);
  const successors = new Set(replies.map((r) => r.json.refresh_token as string));
  assert.equal(successors.size, 1, `one successor for all ${n}:\n${statuses(replies)}`);
  const [successor] = successors as Set<string>;
  assert.ok(successor && successor !== original, 'rotated');
  const accessTokens = replies.map((r) => r.json.access_token as string);
  assert.equal(new Set(accessTokens).size, n, 'an access token each');
  for (const token of accessTokens) {
    assert.equal(grantIdOf(token), grantId);
    await assertIntrospects(setting, token, true, 'an access token of the race');
  }
  // The chain did not fork: of the grant's refresh tokens, only the successor is unused.
  const live = await setup.deps.db.oAuthModel.findMany({ where: { kind: 'RefreshToken', grantId, consumedAt: null }, select: { id: true } });
  assert.deepEqual(live.map((r) => r.id), [hashToken(successor!)], 'one live refresh token: the successor');

  // The successor works (on the last target); then the original is reuse (on the first): the whole grant goes.
  const next = await form(targets[targets.length - 1]!, '/oauth/token', refreshRequest(successor!, clientId));
  assert.equal(next.status, 200, next.text);
  await assertRefreshRefused(targets[0]!, original, clientId, 'the original, once its successor was used');
  await assertRefreshRefused(targets[targets.length - 1]!, next.json.refresh_token, clientId, 'the newest refresh token of a revoked grant');
  for (const token of [first.json.access_token, ...accessTokens, next.json.access_token]) await assertIntrospects(setting, token, false, 'an access token of a revoked grant');
  await assertGrantGone(setting, grantId, 'a refresh token reused');
}
