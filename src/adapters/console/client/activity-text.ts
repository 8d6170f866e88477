// The security activity in words: each type the server records has a sentence here (the type
// checker holds the list to the server's), and a type this console does not know yet still reads
// as words ("webhook_paused" → "Webhook paused"), never as a raw code.
import type { SecurityEventType } from '../../../domain/activity/security-events.js';

const EVENT_TEXT: Record<SecurityEventType, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  mfa_failed: 'Wrong two-step code',
  password_changed: 'Password changed',
  password_reset: 'Password reset by email',
  email_change_requested: 'Email change requested',
  email_changed: 'Email changed',
  provider_linked: 'Provider linked',
  provider_unlinked: 'Provider unlinked',
  session_revoked: 'Session revoked',
  sessions_revoked_all: 'Signed out everywhere',
  mfa_enabled: 'Two-step sign-in turned on',
  mfa_disabled: 'Two-step sign-in turned off',
  recovery_codes_regenerated: 'New recovery codes',
  passkey_added: 'Passkey added',
  passkey_removed: 'Passkey removed',
  slug_changed: 'Slug changed',
  reauthenticated: 'Confirmed it was you',
  token_created: 'Access token created',
  token_revoked: 'Access token revoked',
  device_approved: 'Device signed in',
  oauth_consent_granted: 'Application allowed',
  oauth_grant_revoked: 'Application access revoked',
  webhook_created: 'Webhook created',
  org_joined: 'Joined an organization',
  org_left: 'Left an organization',
  webhook_deleted: 'Webhook deleted',
};

export function eventText(type: string): string {
  if (Object.hasOwn(EVENT_TEXT, type)) return EVENT_TEXT[type as SecurityEventType];
  const words = type.replace(/[_.]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Activity';
}
