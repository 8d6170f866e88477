// The only reader of process.env. Parsed once at start-up; a bad value stops start-up with one
// line naming the variable (API.md section 1).
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { RedisTarget } from './cache/redis.js';

const HTTP = ['http:', 'https:'];

/** A URL with one of the given schemes ("localhost:4000" parses as a URL of scheme "localhost:"). */
const url = (name: string, schemes: string[] = HTTP) =>
  z.string().refine((v) => URL.canParse(v) && schemes.includes(new URL(v).protocol), {
    message: `${name} is not a valid ${schemes.map((s) => s.slice(0, -1)).join('/')} URL`,
  });

const optionalUrl = (name: string, schemes?: string[]) => url(name, schemes).optional();

/** Comma-separated redis:// URLs (host:port of each node; credentials from the first). */
const urlList = (name: string) =>
  z
    .string()
    .transform((v) => v.split(',').map((u) => u.trim()).filter(Boolean))
    .refine((list) => list.length > 0 && list.every((u) => URL.canParse(u) && ['redis:', 'rediss:'].includes(new URL(u).protocol)), {
      message: `${name} must be a comma-separated list of redis:// URLs`,
    });

const bool = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', ''], { message: `${name} must be true or false` })
    .transform((v) => v === 'true' || v === '1');

const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z
    .string()
    .default('4000')
    .refine((v) => /^\d+$/.test(v) && Number(v) <= 65535, { message: 'PORT must be a number from 0 to 65535' })
    .transform(Number),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
  DATABASE_DIRECT_URL: optionalUrl('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']),
  DATABASE_PREPARED_STATEMENTS: bool('DATABASE_PREPARED_STATEMENTS').optional(),
  REDIS_URL: optionalUrl('REDIS_URL', ['redis:', 'rediss:']),
  REDIS_CLUSTER_URLS: urlList('REDIS_CLUSTER_URLS').optional(),
  REDIS_SENTINEL_URLS: urlList('REDIS_SENTINEL_URLS').optional(),
  REDIS_SENTINEL_NAME: z
    .string()
    .refine((v) => /^[A-Za-z0-9._-]{1,64}$/.test(v), { message: 'REDIS_SENTINEL_NAME must be the master group name, such as mymaster' })
    .optional(),
  REDIS_WAIT_REPLICAS: z
    .string()
    .refine((v) => /^[0-9]$/.test(v), { message: 'REDIS_WAIT_REPLICAS must be a number of replicas from 0 to 9' })
    .transform(Number)
    .optional(),
  SMTP_URL: optionalUrl('SMTP_URL', ['smtp:', 'smtps:']),
  MAIL_FROM: z.string().min(3).default('Tunnel Service <no-reply@localhost>'),
  DATA_DIR: z.string().min(1).default('./.data'),
  BASE_URL: optionalUrl('BASE_URL'),
  APP_URL: optionalUrl('APP_URL'),
  ZONE: z
    .string()
    .default('tunnels.localhost')
    .refine((v) => /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(v), {
      message: 'ZONE must be a DNS name such as tunnels.example.com',
    }),
  BROKER_HEALTH_URL: optionalUrl('BROKER_HEALTH_URL'),
  API_HEALTH_URL: optionalUrl('API_HEALTH_URL'),
  INTERNAL_API_TOKEN: z.string().min(1).optional(),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v, ctx): TrustProxy => {
      const t = v.trim().toLowerCase();
      if (t === 'false' || t === '0') return false;
      // `true` is one hop, never "trust every hop": a client must not pick its own address.
      if (t === 'true') return 1;
      if (/^\d+$/.test(t)) return Number(t);
      const cidrs = t.split(',').map((c) => c.trim()).filter(Boolean);
      const bad = cidrs.find((c) => !isCidr(c));
      if (bad === undefined && cidrs.length > 0) return cidrs;
      ctx.addIssue({ code: 'custom', message: `TRUST_PROXY must be true, false, a hop count or a list of proxy CIDRs (not ${bad ?? v})` });
      return z.NEVER;
    }),
  ALLOWED_ORIGINS: z.string().optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_AUTHORIZATION_URL: url('GOOGLE_AUTHORIZATION_URL').default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: url('GOOGLE_TOKEN_URL').default('https://oauth2.googleapis.com/token'),
  GOOGLE_USERINFO_URL: url('GOOGLE_USERINFO_URL').default('https://openidconnect.googleapis.com/v1/userinfo'),
  GITHUB_AUTHORIZATION_URL: url('GITHUB_AUTHORIZATION_URL').default('https://github.com/login/oauth/authorize'),
  GITHUB_TOKEN_URL: url('GITHUB_TOKEN_URL').default('https://github.com/login/oauth/access_token'),
  GITHUB_API_URL: url('GITHUB_API_URL').default('https://api.github.com'),
  SERVICE_NAME: z.string().min(1).default('Tunnel Service'),
  CARD_SCHEMA_URL: url('CARD_SCHEMA_URL').default(
    'https://static.modelcontextprotocol.io/schemas/2025-09-29/server-card.schema.json',
  ),
  METRICS_TOKEN: z.string().min(1).optional(),
  METRICS_PORT: z
    .string()
    .refine((v) => /^\d+$/.test(v) && Number(v) <= 65535, { message: 'METRICS_PORT must be a number from 0 to 65535' })
    .transform(Number)
    .optional(),
  ENCRYPTION_KEY: z
    .string()
    .refine((v) => /^[A-Za-z0-9+/]{43}=$/.test(v) && Buffer.from(v, 'base64').length === 32, {
      message: 'ENCRYPTION_KEY must be 32 bytes in base64 (e.g. openssl rand -base64 32)',
    })
    .optional(),
  GRAPHQL_INTROSPECTION: bool('GRAPHQL_INTROSPECTION').optional(),
  API_DOCS: bool('API_DOCS').optional(),
  PWNED_PASSWORDS_URL: z
    .string()
    .default('https://api.pwnedpasswords.com/range/')
    .refine((v) => v === 'off' || (URL.canParse(v) && HTTP.includes(new URL(v).protocol)), {
      message: 'PWNED_PASSWORDS_URL must be an http(s) URL (the 5 hash characters are appended) or off',
    }),
  WEBAUTHN_RP_ID: z
    .string()
    .refine((v) => /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(v), {
      message: 'WEBAUTHN_RP_ID must be a host name such as example.com (no scheme, no port)',
    })
    .optional(),
  WEBAUTHN_ORIGINS: z.string().optional(),
  OAUTH_ALLOW_PRIVATE_CLIENT_URLS: bool('OAUTH_ALLOW_PRIVATE_CLIENT_URLS').optional(),
  OAUTH_CLIENT_URLS_CA_FILE: z.string().min(1).optional(),
  WEBHOOK_ALLOW_PRIVATE: bool('WEBHOOK_ALLOW_PRIVATE').optional(),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5,300,1800,7200,18000,36000,36000')
    .refine((v) => /^\s*\d{1,7}(\s*,\s*\d{1,7}){0,19}\s*$/.test(v), {
      message: 'WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated numbers of seconds (e.g. 5,300,1800)',
    })
    .transform((v) => v.split(',').map((n) => Number(n.trim()) * 1000)),
  WEBHOOK_TIMEOUT_SECONDS: z
    .string()
    .default('15')
    .refine((v) => /^\d{1,2}$/.test(v) && Number(v) >= 1 && Number(v) <= 60, { message: 'WEBHOOK_TIMEOUT_SECONDS must be a number of seconds from 1 to 60' })
    .transform(Number),
  SIGNUP_RATE_LIMIT: z
    .string()
    .default('20')
    .refine((v) => /^[1-9]\d{0,6}$/.test(v), { message: 'SIGNUP_RATE_LIMIT must be a positive number (sign-ups per client network per hour)' })
    .transform(Number),
  REAUTH_WINDOW_SECONDS: z
    .string()
    .default('600')
    .refine((v) => /^[1-9]\d{0,5}$/.test(v), { message: 'REAUTH_WINDOW_SECONDS must be a positive number of seconds (at most 999999)' })
    .transform(Number),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl('OTEL_EXPORTER_OTLP_ENDPOINT'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** false, a number of proxy hops to trust, or the proxies' addresses (CIDRs). */
export type TrustProxy = false | number | string[];

function isCidr(v: string): boolean {
  const [ip = '', prefix, ...rest] = v.split('/');
  const family = isIP(ip);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

export interface OAuthProviderConfig {
  clientId: string;
  clientSecret: string;
}

export interface Config {
  production: boolean;
  port: number;
  host: string;
  databaseUrl: string | null;
  /** A direct PostgreSQL URL (not through PgBouncer) for migrations; null: databaseUrl. */
  databaseDirectUrl: string | null;
  /**
   * Whether the hot statements run as named prepared statements (parsed and planned once per
   * connection). Default: on, but off behind a transaction pooler (DATABASE_DIRECT_URL set), which
   * before PgBouncer 1.21's max_prepared_statements hands a connection's statements to others.
   */
  databasePreparedStatements: boolean;
  redisUrl: string | null;
  /** The shared Redis (REDIS_URL, REDIS_CLUSTER_URLS or REDIS_SENTINEL_*); null: the memory cache. */
  redis: RedisTarget | null;
  /** Replicas that must acknowledge a revocation's tombstone (REDIS_WAIT_REPLICAS). */
  redisWaitReplicas: number;
  smtpUrl: string | null;
  mailFrom: string;
  dataDir: string;
  baseUrl: string;
  appUrl: string;
  /** Lowercase, no trailing dot. */
  zone: string;
  brokerHealthUrl: string | null;
  apiHealthUrl: string;
  internalApiToken: string | null;
  trustProxy: TrustProxy;
  allowedOrigins: ReadonlySet<string>;
  /** Secure cookies when the API is served over https. */
  secureCookies: boolean;
  /** Host (without port) the API is reached on, from BASE_URL. */
  apiHostname: string;
  google: (OAuthProviderConfig & { authorizationUrl: string; tokenUrl: string; userinfoUrl: string }) | null;
  github: (OAuthProviderConfig & { authorizationUrl: string; tokenUrl: string; apiUrl: string }) | null;
  serviceName: string;
  cardSchemaUrl: string;
  metricsToken: string | null;
  /** Serve /metrics on this separate port instead of the public one. */
  metricsPort: number | null;
  /** 32 bytes; null: the embedded default (a key generated into DATA_DIR, see deps.ts). */
  encryptionKey: Buffer | null;
  graphqlIntrospection: boolean;
  /** GET /docs, the REST API reference page (API.md section 16); off in production by default. */
  apiDocs: boolean;
  /** The breached-password range API (5 hex characters appended); null: the check is off. */
  pwnedPasswordsUrl: string | null;
  /** Client ID metadata documents may be fetched from private addresses (API.md section 13; off by default). */
  oauthAllowPrivateClientUrls: boolean;
  /** A PEM file of extra CAs trusted when fetching client metadata documents (a private PKI); null: the system's. */
  oauthClientUrlsCaFile: string | null;
  /** Webhooks (API.md section 15): http and private addresses allowed (development, tests). */
  webhookAllowPrivate: boolean;
  /** Milliseconds between a webhook delivery's attempts; its length + 1 is the number of attempts. */
  webhookRetryScheduleMs: number[];
  /** How long a receiver has to answer one delivery. */
  webhookTimeoutMs: number;
  /** Passkeys: the relying party id (a host name) and the page origins a ceremony may come from. */
  webauthn: { rpId: string; origins: string[] };
  /** Sign-ups per client network (IPv4 /24, IPv6 /48) per hour. */
  signupRateLimit: number;
  /** How long a session stays recently authenticated after a sign-in or a re-authentication (API.md 7a). */
  reauthWindowMs: number;
  otlpEndpoint: string | null;
  logLevel: string;
}

export class ConfigError extends Error {}

/** Shortest bearer secret accepted in production (INTERNAL_API_TOKEN, METRICS_TOKEN). */
export const MIN_PRODUCTION_SECRET = 32;

/**
 * A value someone forgot to replace: an example's placeholder (CHANGE_ME, changeme, secret, …),
 * however it is spelled or repeated to pass a length check, or one character over and over.
 */
export function isPlaceholderSecret(value: string): boolean {
  const plain = value.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (plain.length === 0 || /^(.)\1*$/.test(plain)) return true;
  if (/changeme|replaceme|placeholder|example/.test(plain)) return true;
  return /^(secret|password|token|test)+\d*$/.test(plain);
}

/** API.md 7a: in production a bearer secret must be long and not a placeholder. */
function checkProductionSecret(name: string, value: string | undefined): void {
  if (value === undefined) return;
  if (value.length < MIN_PRODUCTION_SECRET || isPlaceholderSecret(value)) {
    throw new ConfigError(
      `${name} must be at least ${MIN_PRODUCTION_SECRET} random characters when NODE_ENV=production, not a placeholder (generate one: openssl rand -hex 32)`,
    );
  }
}

function stripSlash(u: string): string {
  return u.replace(/\/+$/, '');
}

/**
 * WEBAUTHN_RP_ID defaults to the host name of APP_URL, WEBAUTHN_ORIGINS to its origin. Browsers
 * accept an RP id only when it is the page's host or a parent domain of it, so an origin outside
 * the RP id would make every ceremony fail: refused at start-up instead.
 */
function webauthnOf(rpIdRaw: string | undefined, originsRaw: string | undefined, appUrl: string): Config['webauthn'] {
  const rpId = (rpIdRaw ?? new URL(appUrl).hostname).toLowerCase().replace(/^\[|\]$/g, '');
  const origins = (originsRaw ?? new URL(appUrl).origin)
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  if (origins.length === 0) throw new ConfigError('WEBAUTHN_ORIGINS must list at least one origin');
  const parsed = origins.map((o) => {
    const u = URL.canParse(o) ? new URL(o) : null;
    if (!u || !HTTP.includes(u.protocol) || u.origin !== o.replace(/\/$/, '')) {
      throw new ConfigError(`WEBAUTHN_ORIGINS: ${o} is not an origin such as https://app.example.com`);
    }
    return u;
  });
  const outside = parsed.find((u) => u.hostname !== rpId && !u.hostname.endsWith(`.${rpId}`));
  if (outside) {
    throw new ConfigError(`WEBAUTHN_RP_ID ${rpId} must be the host of ${outside.origin} or a parent domain of it (set WEBAUTHN_RP_ID or WEBAUTHN_ORIGINS)`);
  }
  return { rpId, origins: parsed.map((u) => u.origin) };
}

/** Parses the environment; throws ConfigError with one line naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as in most .env files and compose files.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    const message = issue?.message ?? 'invalid';
    throw new ConfigError(message.includes(name) ? message : `${name}: ${message}`);
  }
  const e = parsed.data;
  const baseUrl = stripSlash(e.BASE_URL ?? `http://localhost:${e.PORT}`);
  const appUrl = stripSlash(e.APP_URL ?? baseUrl);
  const originsRaw = e.ALLOWED_ORIGINS ?? new URL(appUrl).origin;
  const origins = originsRaw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of origins) {
    if (!URL.canParse(o)) throw new ConfigError(`ALLOWED_ORIGINS: ${o} is not a valid origin`);
  }
  const pair = (id?: string, secret?: string, name = '') => {
    if (Boolean(id) !== Boolean(secret)) {
      throw new ConfigError(`${name}_CLIENT_ID and ${name}_CLIENT_SECRET must be set together`);
    }
    return id && secret ? { clientId: id, clientSecret: secret } : null;
  };
  const production = e.NODE_ENV === 'production';
  if (production && !e.ENCRYPTION_KEY) {
    throw new ConfigError('ENCRYPTION_KEY is required when NODE_ENV=production (32 bytes, base64: openssl rand -base64 32)');
  }
  if (production) {
    checkProductionSecret('INTERNAL_API_TOKEN', e.INTERNAL_API_TOKEN);
    checkProductionSecret('METRICS_TOKEN', e.METRICS_TOKEN);
  }
  const redisChoices = [e.REDIS_URL, e.REDIS_CLUSTER_URLS, e.REDIS_SENTINEL_URLS].filter((v) => v !== undefined);
  if (redisChoices.length > 1) {
    throw new ConfigError('REDIS_URL, REDIS_CLUSTER_URLS and REDIS_SENTINEL_URLS: set only one of them');
  }
  if (Boolean(e.REDIS_SENTINEL_URLS) !== Boolean(e.REDIS_SENTINEL_NAME)) {
    throw new ConfigError('REDIS_SENTINEL_URLS and REDIS_SENTINEL_NAME must be set together');
  }
  const redis: RedisTarget | null = e.REDIS_URL
    ? { mode: 'single', url: e.REDIS_URL }
    : e.REDIS_CLUSTER_URLS
      ? { mode: 'cluster', urls: e.REDIS_CLUSTER_URLS }
      : e.REDIS_SENTINEL_URLS && e.REDIS_SENTINEL_NAME
        ? { mode: 'sentinel', urls: e.REDIS_SENTINEL_URLS, name: e.REDIS_SENTINEL_NAME }
        : null;
  if (e.DATABASE_DIRECT_URL && !e.DATABASE_URL) {
    throw new ConfigError('DATABASE_DIRECT_URL needs DATABASE_URL (the pooled URL the server uses)');
  }
  const webauthn = webauthnOf(e.WEBAUTHN_RP_ID, e.WEBAUTHN_ORIGINS, appUrl);
  const google = pair(e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET, 'GOOGLE');
  const github = pair(e.GITHUB_CLIENT_ID, e.GITHUB_CLIENT_SECRET, 'GITHUB');
  return {
    production,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL ?? null,
    databaseDirectUrl: e.DATABASE_DIRECT_URL ?? null,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS ?? !e.DATABASE_DIRECT_URL,
    redisUrl: e.REDIS_URL ?? null,
    redis,
    // A failover promotes a replica: by default a revocation waits for one to have its tombstone.
    redisWaitReplicas: e.REDIS_WAIT_REPLICAS ?? (redis && redis.mode !== 'single' ? 1 : 0),
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM,
    dataDir: resolve(e.DATA_DIR),
    baseUrl,
    appUrl,
    zone: e.ZONE.toLowerCase().replace(/\.$/, ''),
    brokerHealthUrl: e.BROKER_HEALTH_URL ?? null,
    apiHealthUrl: e.API_HEALTH_URL ?? `http://127.0.0.1:${e.PORT}/healthz`,
    internalApiToken: e.INTERNAL_API_TOKEN ?? null,
    trustProxy: e.TRUST_PROXY,
    allowedOrigins: new Set(origins.map((o) => new URL(o).origin)),
    secureCookies: baseUrl.startsWith('https:'),
    apiHostname: new URL(baseUrl).hostname.toLowerCase(),
    google: google && {
      ...google,
      authorizationUrl: e.GOOGLE_AUTHORIZATION_URL,
      tokenUrl: e.GOOGLE_TOKEN_URL,
      userinfoUrl: e.GOOGLE_USERINFO_URL,
    },
    github: github && {
      ...github,
      authorizationUrl: e.GITHUB_AUTHORIZATION_URL,
      tokenUrl: e.GITHUB_TOKEN_URL,
      apiUrl: stripSlash(e.GITHUB_API_URL),
    },
    serviceName: e.SERVICE_NAME,
    cardSchemaUrl: e.CARD_SCHEMA_URL,
    metricsToken: e.METRICS_TOKEN ?? null,
    metricsPort: e.METRICS_PORT ?? null,
    encryptionKey: e.ENCRYPTION_KEY ? Buffer.from(e.ENCRYPTION_KEY, 'base64') : null,
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION ?? !production,
    apiDocs: e.API_DOCS ?? !production,
    pwnedPasswordsUrl: e.PWNED_PASSWORDS_URL === 'off' ? null : e.PWNED_PASSWORDS_URL,
    oauthAllowPrivateClientUrls: e.OAUTH_ALLOW_PRIVATE_CLIENT_URLS ?? false,
    oauthClientUrlsCaFile: e.OAUTH_CLIENT_URLS_CA_FILE ?? null,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? false,
    webhookRetryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
    webauthn,
    signupRateLimit: e.SIGNUP_RATE_LIMIT,
    reauthWindowMs: e.REAUTH_WINDOW_SECONDS * 1000,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    logLevel: e.LOG_LEVEL,
  };
}
