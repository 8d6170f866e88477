// The REST answers' shapes (API.md sections 4, 7, 8, 10, 12, 13 and 15), as zod schemas. A route's
// `respond` is typed to return its schema's type, so the mapping from the GraphQL result cannot
// leave a field out; the OpenAPI document (openapi.ts) prints these same schemas, and the
// contract test validates every answer the API tests get against them (objects are strict, so an
// extra field fails there).
import { z } from 'zod';
import { ERROR_STATUS } from '../../domain/errors.js';
import { PROBLEM_LIST, PROBLEMS_PATH } from '../../domain/problems.js';
import { problemTypeFields } from '../problem.js';

const time = z.string().meta({ format: 'date-time', description: 'RFC 3339, UTC.' });
const maskedIp = z.string().meta({ description: 'Masked: an IPv4 keeps three octets (203.0.113.x), an IPv6 its /48 (2001:db8:1::x).' });

/** Every problem type of the catalog, as the document lists them (`x-problem-types`). */
const PROBLEM_TYPES = PROBLEM_LIST.map(problemTypeFields);

export const Problem = z
  .strictObject({
    type: z
      .string()
      .regex(new RegExp(`^https?://[^\\s]*${PROBLEMS_PATH}/(${PROBLEM_LIST.map((p) => p.slug).join('|')})$`))
      .meta({
        format: 'uri',
        description: `The problem type: BASE_URL${PROBLEMS_PATH}/<slug>, one of the catalog in \`x-problem-types\`; GET of it answers its entry.`,
        examples: PROBLEM_LIST.slice(0, 3).map((p) => `https://api.example.com${PROBLEMS_PATH}/${p.slug}`),
        'x-problem-types': PROBLEM_TYPES,
      }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
    errors: z
      .array(
        z.strictObject({
          detail: z.string().meta({ description: 'What is wrong with this input, in words to show beside it.' }),
          pointer: z.string().optional().meta({ description: 'The JSON Pointer (RFC 6901) of the request body member, such as `/allowed_emails`.' }),
          parameter: z.string().optional().meta({ description: 'The query or path parameter, such as `limit`.' }),
        }),
      )
      .optional()
      .meta({ description: 'When the error is about one input of the request: which one (`pointer` or `parameter`) and what is wrong with it.' }),
  })
  .meta({ description: 'RFC 9457 problem details; `code` is one of the error codes of the catalog. A 400 or 409 about one input of the request names it in `errors`.' });

export const SignedUp = z.strictObject({ id: z.string(), email: z.string(), email_verified: z.boolean(), slug: z.string() });

const Session = z.strictObject({
  token: z.string().meta({ description: 'The session token, for `Authorization: Bearer` (the same session is set as the `session` cookie).' }),
  email_verified: z.boolean(),
  expires_at: time,
});
const SecondStepRequired = z.strictObject({
  mfa_required: z.literal(true),
  mfa_token: z.string().meta({ description: 'For POST /auth/mfa/verify; lives 5 minutes, works once.' }),
  expires_at: time,
});
export const AuthPayload = z
  .union([Session, SecondStepRequired])
  .meta({ description: 'A session, or (two-step sign-in on) only what the second step needs: no token and no cookie yet.' });

export const Account = z.strictObject({
  id: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  slug: z.string(),
  plan: z.string(),
  linked_providers: z.array(z.strictObject({ provider: z.string(), email: z.string().nullable(), linked_at: time })),
  last_login: z.strictObject({ at: time, ip: maskedIp.nullable() }).nullable(),
  mfa: z.strictObject({ totp: z.boolean(), recovery_codes_left: z.number().int(), passkeys: z.number().int() }),
  reauthenticated_until: time.nullable().meta({ description: 'End of the recent-authentication window (after which a sensitive change asks to re-authenticate), or null.' }),
});

export const SessionList = z.strictObject({
  sessions: z.array(
    z.strictObject({
      id: z.string(),
      user_agent: z.string().nullable(),
      ip: maskedIp.nullable(),
      created_at: time,
      last_seen_at: time,
      method: z.string().nullable(),
      second_step: z.boolean(),
      current: z.boolean(),
    }),
  ),
});

export const TotpSetup = z.strictObject({ secret: z.string(), otpauth_url: z.string(), qr_svg: z.string() });
export const RecoveryCodes = z.strictObject({ recovery_codes: z.array(z.string()) });

export const Passkey = z.strictObject({
  id: z.string(),
  name: z.string(),
  created_at: time,
  last_used_at: time.nullable(),
  backup_eligible: z.boolean(),
  backed_up: z.boolean(),
});
export const WebAuthnOptions = z.record(z.string(), z.unknown()).meta({ description: 'WebAuthn options JSON, for the browser (SimpleWebAuthn form).' });

export const ActivityPage = z.strictObject({
  events: z.array(
    z.strictObject({
      id: z.string(),
      type: z.string().meta({ description: 'The kind of activity, such as `sign_in`, `password_changed` or `token_created`.' }),
      at: time,
      ip: maskedIp.nullable(),
      user_agent: z.string().nullable(),
      detail: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `before` for the next page; null on the last one.' }),
});

const TokenScope = z.string().meta({ enum: ['tunnels:read', 'tunnels:write', 'account:read'] });
const tokenFields = { id: z.string(), name: z.string(), scopes: z.array(TokenScope), created_at: time, expires_at: time.nullable(), last_used_at: time.nullable() };
export const ServiceToken = z.strictObject({ ...tokenFields, last_used_ip: maskedIp.nullable() });
export const CreatedServiceToken = z.strictObject({
  ...tokenFields,
  token: z.string().meta({ description: '`tsk_` + 32 base62 characters + a 6-character CRC32; shown in this answer only.' }),
});
export const ServiceTokenList = z.strictObject({ tokens: z.array(ServiceToken) });
export const OrgServiceTokenList = z.strictObject({
  tokens: z.array(ServiceToken.extend({ created_by: z.string().nullable().meta({ description: 'The account id of the member who made it (kept after they leave).' }) })),
});
export const DeviceRequest = z.strictObject({ client_id: z.string(), scopes: z.array(z.string()), requested_at: time, ip: maskedIp.nullable() });

export const Tunnel = z.strictObject({
  id: z.string(),
  subdomain: z.string(),
  host: z.string().meta({ description: '`<subdomain>--<slug>.ZONE`' }),
  url: z.string().meta({ description: '`https://<host>/mcp`' }),
  custom_domain: z.string().nullable(),
  discoverable: z.boolean(),
  pinned_tools: z.array(z.string()),
  access: z.string().meta({ enum: ['public', 'oauth'] }),
  allowed_emails: z.array(z.string()),
  created_at: time,
  owner: z.strictObject({ type: z.enum(['account', 'org']), slug: z.string() }).meta({ description: 'The account or organization that owns the tunnel.' }),
});
export const TunnelList = z.strictObject({ tunnels: z.array(Tunnel) });

const TunnelRef = z.strictObject({ id: z.string(), host: z.string() });
export const OAuthGrantList = z.strictObject({
  grants: z.array(
    z.strictObject({
      id: z.string(),
      client_id: z.string(),
      client_name: z.string().nullable(),
      resource: z.string(),
      tunnel: TunnelRef.nullable(),
      scopes: z.array(z.string()),
      created_at: time,
      last_used_at: time.nullable(),
    }),
  ),
});
export const OAuthRequest = z.strictObject({
  client_id: z.string(),
  client_name: z.string().nullable(),
  redirect_host: z.string(),
  resource: z.string(),
  tunnel: TunnelRef,
  scopes: z.array(z.string()),
  allowed: z.boolean(),
});
export const RedirectTo = z.strictObject({ redirect_to: z.string().meta({ description: "The client's redirect URI with the answer." }) });

const webhookFields = {
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  created_at: time,
};
const secret = z.string().meta({ description: '`whsec_` + base64 of 32 random bytes; shown in this answer only.' });
export const Webhook = z.strictObject(webhookFields);
export const CreatedWebhook = z.strictObject({ ...webhookFields, secret });
export const WebhookList = z.strictObject({ webhooks: z.array(Webhook) });
export const WebhookSecret = z.strictObject({ secret });
export const WebhookTestSent = z.strictObject({ event_id: z.string() });
export const WebhookDeliveryLog = z.strictObject({
  deliveries: z.array(
    z.strictObject({
      id: z.string().meta({ description: 'The attempt.' }),
      delivery_id: z.string().meta({ description: 'The delivery (for retry).' }),
      event_id: z.string().meta({ description: 'The `webhook-id` header.' }),
      type: z.string(),
      attempt: z.number().int(),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
      duration_ms: z.number().int().nullable(),
      at: time,
      next_attempt_at: time.nullable(),
    }),
  ),
});

const OrgRole = z.string().meta({ enum: ['owner', 'admin', 'member'] });
export const Organization = z.strictObject({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  created_at: time,
  role: OrgRole.nullable().meta({ description: "The caller's role (null for the organization's own token)." }),
});
export const OrganizationList = z.strictObject({ orgs: z.array(Organization) });
export const OrgMember = z.strictObject({ account_id: z.string(), email: z.string(), slug: z.string(), role: OrgRole, joined_at: time });
export const OrgMemberList = z.strictObject({ members: z.array(OrgMember) });
export const OrgInvitation = z.strictObject({ id: z.string(), email: z.string(), role: OrgRole, expires_at: time });
export const OrgInvitationList = z.strictObject({ invitations: z.array(OrgInvitation) });
export const AuditPage = z.strictObject({
  events: z.array(
    z.strictObject({
      id: z.string(),
      type: z.string().meta({ description: 'org_created, member_joined, tunnel_created, token_revoked, …' }),
      actor: z.union([z.strictObject({ account_id: z.string(), email: z.string() }), z.strictObject({ token_id: z.string() })]).nullable(),
      target: z.record(z.string(), z.unknown()),
      at: time,
      ip: maskedIp.nullable(),
    }),
  ),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `before` for the next page; null on the last one.' }),
});

/** Shapes shown by name under components.schemas (others are printed where they are used). */
export const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  Problem,
  AuthPayload,
  Account,
  Passkey,
  ServiceToken,
  CreatedServiceToken,
  Tunnel,
  Webhook,
  CreatedWebhook,
  Organization,
};
