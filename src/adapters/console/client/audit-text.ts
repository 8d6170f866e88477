/// <reference lib="dom" />
// An organization's audit log in words: each type the server records has a sentence here (the
// type checker holds the list to the server's), a type this console does not know yet still reads
// as words, and an event's target is told by what it names (a tunnel, a person, a role change, a
// new name), never as raw JSON.
import type { AuditType } from '../../../domain/membership/audit.js';
import { chip, h, type Child } from './dom.js';

const AUDIT_TEXT: Record<AuditType, string> = {
  org_created: 'Organization created',
  org_renamed: 'Organization renamed',
  member_invited: 'Member invited',
  invitation_revoked: 'Invitation revoked',
  member_joined: 'Member joined',
  member_removed: 'Member removed',
  member_left: 'Member left',
  role_changed: 'Role changed',
  tunnel_created: 'Tunnel created',
  tunnel_deleted: 'Tunnel deleted',
  tunnel_transferred: 'Tunnel moved',
  tunnel_access_changed: 'Tunnel access changed',
  token_created: 'Access token created',
  token_revoked: 'Access token revoked',
  webhook_changed: 'Webhook changed',
};

export function auditText(type: string): string {
  if (Object.hasOwn(AUDIT_TEXT, type)) return AUDIT_TEXT[type as AuditType];
  const words = type.replace(/[_.]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Event';
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);

/** Identifiers say nothing to a person: the names beside them do. */
const SHOWN = ['subdomain', 'email', 'name', 'role', 'access', 'url', 'slug'] as const;

/** The target of an event as a few labelled pieces: "weather", "ada@example.com, admin → owner". */
export function auditDetail(target: Record<string, unknown>): Child {
  const parts: Child[] = [];
  for (const key of SHOWN) {
    const value = text(target[key]);
    if (value === null) continue;
    parts.push(key === 'subdomain' || key === 'slug' || key === 'url' || key === 'email' ? chip(value) : key === 'role' ? `as ${value}` : value);
  }
  const from = text(target.from);
  const to = text(target.to);
  if (from !== null || to !== null) parts.push(`${from ?? '?'} → ${to ?? '?'}`);
  const emails = Array.isArray(target.allowed_emails) ? target.allowed_emails.filter((e): e is string => typeof e === 'string') : [];
  if (emails.length) parts.push(h('span', {}, 'allowed: ', emails.map((e, i) => [i ? ', ' : '', chip(e)])));
  if (parts.length === 0) return h('span', { class: 'muted' }, '—');
  return h('span', { class: 'detail' }, parts.map((p, i) => [i ? ', ' : '', p]));
}
