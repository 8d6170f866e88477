// The security activity log (API.md section 10). Each event is written in the transaction of the
// change it records, so a change and its record commit or roll back together. Nothing here is
// on a hot path: session checks, cards and status never write to it; a sign-in adds one row to
// the statement that already writes the session (sessions/sign-in.ts).
import type { DbHandle } from '../store.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { insertSecurityEvent, type EventRow } from './store.js';
import { maskIp } from '../network.js';

export const SECURITY_EVENT_TYPES = [
  'sign_in',
  'sign_in_failed',
  'mfa_failed',
  'password_changed',
  'password_reset',
  'email_change_requested',
  'email_changed',
  'provider_linked',
  'provider_unlinked',
  'session_revoked',
  'sessions_revoked_all',
  'mfa_enabled',
  'mfa_disabled',
  'recovery_codes_regenerated',
  'passkey_added',
  'passkey_removed',
  'slug_changed',
  'reauthenticated',
  'token_created',
  'token_revoked',
  'device_approved',
  'oauth_consent_granted',
  'oauth_grant_revoked',
  'webhook_created',
  'webhook_deleted',
  'org_joined',
  'org_left',
] as const;

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** What an event says beyond its type: small, flat, never a credential. */
export type SecurityEventDetail = Record<string, string | number | boolean | null>;

export interface SecurityEventInput {
  accountId: string;
  type: SecurityEventType;
  /** Who made the change; null when no request carries it (a background job). */
  client: ClientInfo | null;
  detail?: SecurityEventDetail;
  at: Date;
}

/** Longest user agent kept: enough to recognise a browser, bounded against abuse. */
export const USER_AGENT_MAX = 512;

export function eventRow(e: SecurityEventInput): EventRow {
  return {
    accountId: e.accountId,
    type: e.type,
    at: e.at,
    ip: e.client ? maskIp(e.client.ip) : 'unknown',
    userAgent: (e.client?.userAgent ?? '').slice(0, USER_AGENT_MAX),
    detail: e.detail ?? {},
  };
}

/**
 * Records an event in the caller's transaction (it commits with the change it records), with its
 * `account.security` webhook event (API.md section 15); returns the webhook deliveries queued.
 */
export function recordSecurityEvent(tx: DbHandle, e: SecurityEventInput): Promise<number> {
  return insertSecurityEvent(tx, eventRow(e));
}

/**
 * Records an event that has no change to commit with (a failed sign-in, a wrong second step).
 * Its failure is logged, never passed on: the caller's answer does not depend on the log.
 */
export async function recordSecurityEventQuietly(
  deps: Pick<DomainDeps, 'db' | 'logger' | 'webhookNotify'>,
  e: SecurityEventInput,
): Promise<void> {
  try {
    if ((await recordSecurityEvent(deps.db, e)) > 0) deps.webhookNotify();
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, type: e.type }, 'security event not recorded');
  }
}
