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

/** Identifiers say nothing to a person: the names beside them do (in this order). */
const SHOWN = ['action', 'subdomain', 'host', 'url', 'slug', 'name', 'email', 'role', 'access'] as const;
const AS_CHIP = new Set<string>(['subdomain', 'host', 'url', 'slug']);
/** Lists, each under a word. */
const LISTS: [string, string][] = [
  ['scopes', 'scopes'],
  ['events', 'events'],
  ['changed', 'changed'],
  ['allowed_emails', 'allowed'],
];

/** The target of an event as a few pieces: "weather", "ada@example.com, member → admin", "created, hooks.example.com, events: org.member". */
export function auditDetail(target: Record<string, unknown>): Child {
  const parts: Child[] = [];
  for (const key of SHOWN) {
    const value = text(target[key]);
    if (value === null) continue;
    parts.push(AS_CHIP.has(key) ? chip(value) : key === 'role' ? `as ${value}` : key === 'email' ? h('span', { class: 'email' }, value) : value);
  }
  const from = text(target.from);
  const to = text(target.to);
  if (from !== null || to !== null) parts.push(`${from ?? '?'} → ${to ?? '?'}`);
  for (const [key, word] of LISTS) {
    const items = Array.isArray(target[key]) ? (target[key] as unknown[]).filter((e): e is string => typeof e === 'string') : [];
    if (items.length) parts.push(h('span', {}, `${word}: `, items.map((e, i) => [i ? ', ' : '', chip(e)])));
  }
  if (parts.length === 0) return h('span', { class: 'muted' }, '—');
  return h('span', { class: 'detail' }, parts.map((p, i) => [i ? ', ' : '', p]));
}
