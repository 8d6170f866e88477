// The one catalog of problem types (RFC 9457): every error the server answers is one of these.
// An entry's slug names it for good; its `type` URI is BASE_URL/problems/<slug> (served by the
// API host, src/adapters/api/routes/problems.ts), its `code` is the contract's error code that
// clients switch on (API.md section 3), its status the HTTP status it is answered with. The OAuth
// endpoints answer their RFCs' `{error, error_description}`: their entries name that `error`.
// The OpenAPI document lists the catalog and docs/api.md prints it (a test keeps it current).

export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  /** A recently authenticated session is needed (API.md section 7a). */
  REAUTH_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const PROBLEM_AREAS = ['request', 'accounts', 'sessions', 'tokens', 'tunnels', 'cards', 'oauth', 'status', 'webhooks', 'orgs', 'limits'] as const;
export type ProblemArea = (typeof PROBLEM_AREAS)[number];

/** The `error` values of RFC 6749 section 5.2 and RFC 8628 section 3.5 the OAuth endpoints answer. */
export type OAuthErrorValue =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'temporarily_unavailable';

export interface ProblemType<C extends ErrorCode = ErrorCode> {
  /** Lowercase words joined by hyphens; the last segment of the type URI. */
  readonly slug: string;
  readonly area: ProblemArea;
  readonly code: C;
  readonly status: number;
  /** A short name of the problem type, for the catalog (the answer's `title` is its status's reason phrase). */
  readonly title: string;
  /** One line: when it happens and what to do. */
  readonly description: string;
  /** For the OAuth endpoints' answers: the RFC's `error` value. */
  readonly oauthError?: OAuthErrorValue;
}

type Entry<C extends ErrorCode> = Omit<ProblemType<C>, 'slug'>;

const entry = <C extends ErrorCode>(area: ProblemArea, code: C, title: string, description: string, extra: { status?: number; oauthError?: OAuthErrorValue } = {}): Entry<C> => ({
  area,
  code,
  status: extra.status ?? ERROR_STATUS[code],
  title,
  description,
  ...(extra.oauthError ? { oauthError: extra.oauthError } : {}),
});

/** An entry the OAuth endpoints answer in their RFCs' format. */
export type OAuthProblemType = ProblemType & { readonly oauthError: OAuthErrorValue };

const oauth = (oauthError: OAuthErrorValue, title: string, description: string, status = 400): Entry<'BAD_REQUEST'> & { oauthError: OAuthErrorValue } => ({
  ...entry('oauth', 'BAD_REQUEST', title, description, { status }),
  oauthError,
});

const CATALOG = {
  // request: how the request was sent, before any operation runs.
  requestMalformed: entry('request', 'BAD_REQUEST', 'Malformed request', 'The request could not be read (framework refusal, bad header or encoding).'),
  malformedUrl: entry('request', 'BAD_REQUEST', 'Malformed URL', 'The request URL could not be parsed.'),
  uriTooLong: entry('request', 'BAD_REQUEST', 'URL too long', 'A path parameter of the request URL is longer than the server reads.', { status: 414 }),
  badHost: entry('request', 'BAD_REQUEST', 'Bad Host header', 'The request needs exactly one valid Host header.'),
  invalidJson: entry('request', 'BAD_REQUEST', 'Invalid JSON', 'The request body is not valid JSON.'),
  bodyNotObject: entry('request', 'BAD_REQUEST', 'Body is not an object', 'The request body must be a JSON object.'),
  bodyTooLarge: entry('request', 'BAD_REQUEST', 'Body too large', 'The request body is larger than the endpoint accepts (64 KiB for the API).', { status: 413 }),
  unsupportedMediaType: entry('request', 'BAD_REQUEST', 'Unsupported media type', 'The request body is not in a media type the endpoint reads (application/json for the API).', { status: 415 }),
  methodNotAllowed: entry('request', 'BAD_REQUEST', 'Method not allowed', 'The path exists but does not answer this method; the Allow header lists those it does.', { status: 405 }),
  notFound: entry('request', 'NOT_FOUND', 'Not found', 'No endpoint or resource answers this path.'),
  invalidParameter: entry('request', 'BAD_REQUEST', 'Invalid parameter', 'A body member, query or path parameter is missing, repeated or of the wrong type; `errors` names it.'),
  invalidCursor: entry('request', 'BAD_REQUEST', 'Invalid page request', 'A list was asked for with a cursor, limit or direction it does not take.'),
  graphqlInvalid: entry('request', 'BAD_REQUEST', 'Invalid GraphQL request', 'The GraphQL document does not parse, validate or coerce its variables, or is over the depth, cost or alias limits.'),
  onePasswordOperation: entry('request', 'BAD_REQUEST', 'One password operation per request', 'A GraphQL request may carry at most one operation that checks or sets a password.'),
  crossSiteRefused: entry('request', 'FORBIDDEN', 'Cross-site request refused', 'A change was sent from an origin that is not allowed; bearer-authenticated requests are exempt.'),
  internalError: entry('request', 'UNAVAILABLE', 'Internal error', 'Something failed on the server; nothing was leaked. Try again later.', { status: 500 }),
  notReady: entry('request', 'UNAVAILABLE', 'Not ready', 'The readiness probe found the database or the cache unreachable.'),
  internalTokenRequired: entry('request', 'UNAUTHENTICATED', 'Operator token required', 'An operator path (internal API, metrics) needs its bearer token.'),

  // accounts: sign-up and the account's own settings.
  emailTaken: entry('accounts', 'CONFLICT', 'Email taken', 'An account with this email address already exists.'),
  invalidEmail: entry('accounts', 'BAD_REQUEST', 'Invalid email', 'The email address is not valid (at most 254 characters, local part at most 64).'),
  emailUnchanged: entry('accounts', 'BAD_REQUEST', 'Email unchanged', 'The new email address is the one the account already has.'),
  emailUnverified: entry('accounts', 'FORBIDDEN', 'Email not verified', 'This action needs a verified email address: follow the verification link first.'),
  invalidPassword: entry('accounts', 'BAD_REQUEST', 'Invalid password', 'The password is shorter or longer than allowed.'),
  breachedPassword: entry('accounts', 'BAD_REQUEST', 'Breached password', 'The password appears in a known data breach; choose another one.'),
  invalidLink: entry('accounts', 'BAD_REQUEST', 'Invalid or expired link', 'An email link (verification, reset, email change, account link) is unknown, used or expired.'),
  invalidSlug: entry('accounts', 'BAD_REQUEST', 'Invalid slug', 'The slug breaks its rules (length, characters, reserved words).'),
  slugTaken: entry('accounts', 'CONFLICT', 'Slug taken', 'Another account has this slug.'),
  slugHeld: entry('accounts', 'CONFLICT', 'Slug held', 'The slug was released recently and is held for 30 days.'),
  noFreeSlug: entry('accounts', 'CONFLICT', 'No free slug', 'No free slug could be derived from the email at sign-up; try again.'),
  deletionNotConfirmed: entry('accounts', 'BAD_REQUEST', 'Deletion not confirmed', 'The email typed to confirm the deletion does not match the account.'),

  // sessions: signing in, proving it is you, sessions and sign-in methods.
  signInRequired: entry('sessions', 'UNAUTHENTICATED', 'Sign-in required', 'The path needs a session (cookie or bearer token) and the request has none that is valid.'),
  invalidToken: entry('sessions', 'UNAUTHENTICATED', 'Invalid token', 'The bearer token presented is malformed, unknown, expired or revoked.'),
  wrongCredentials: entry('sessions', 'UNAUTHENTICATED', 'Wrong credentials', 'The email and password do not match an account (the same answer for an unknown email).'),
  wrongPassword: entry('sessions', 'UNAUTHENTICATED', 'Wrong password', 'The password given to confirm an action is not the account’s, or the account has none.'),
  reauthRequired: entry('sessions', 'REAUTH_REQUIRED', 'Re-authentication required', 'The action needs a recently authenticated session: re-authenticate, then try again.'),
  reauthInvalid: entry('sessions', 'BAD_REQUEST', 'Invalid re-authentication', 'A re-authentication needs exactly one proof: a password, a code, or a passkey response.'),
  reauthOtherWay: entry('sessions', 'FORBIDDEN', 'Confirm another way', 'Two-step sign-in is on, so a provider alone cannot confirm it is you.'),
  sessionNotFound: entry('sessions', 'NOT_FOUND', 'Session not found', 'No session of this account has this id.'),
  currentSession: entry('sessions', 'BAD_REQUEST', 'Current session', 'The current session is ended with logout, not revoked by id.'),
  wrongCode: entry('sessions', 'BAD_REQUEST', 'Wrong code', 'The authenticator or recovery code is not correct.'),
  wrongCodeAtSignIn: entry('sessions', 'UNAUTHENTICATED', 'Wrong sign-in code', 'The second step of a sign-in got a code that is not correct.'),
  signInAttemptInvalid: entry('sessions', 'BAD_REQUEST', 'Invalid sign-in attempt', 'The pending sign-in (second step, provider round trip) is invalid, expired or already used.'),
  twoStepOn: entry('sessions', 'CONFLICT', 'Two-step sign-in already on', 'Two-step sign-in is on; turn it off before setting up another authenticator.'),
  twoStepOff: entry('sessions', 'BAD_REQUEST', 'Two-step sign-in off', 'Two-step sign-in is not on, or no setup is pending.'),
  passkeyFailed: entry('sessions', 'UNAUTHENTICATED', 'Passkey sign-in failed', 'The passkey assertion could not be verified.'),
  passkeyInvalid: entry('sessions', 'BAD_REQUEST', 'Passkey not accepted', 'The passkey registration could not be verified, or the authenticator cannot be used to sign in.'),
  passkeyChallengeExpired: entry('sessions', 'BAD_REQUEST', 'Passkey challenge expired', 'No passkey ceremony with this challenge is in progress: ask for new options.'),
  passkeyRegistered: entry('sessions', 'BAD_REQUEST', 'Passkey already registered', 'This passkey is already registered.'),
  passkeyLimit: entry('sessions', 'CONFLICT', 'Passkey limit', 'The account holds the most passkeys it may; remove one first.'),
  passkeyNotFound: entry('sessions', 'NOT_FOUND', 'Passkey not found', 'No passkey of this account has this id.'),
  invalidPasskeyName: entry('sessions', 'BAD_REQUEST', 'Invalid passkey name', 'A passkey name has 1 to 64 characters and no control characters.'),
  passkeysUnavailable: entry('sessions', 'UNAVAILABLE', 'Passkeys unavailable', 'Passkey ceremonies cannot be run for a moment; sign in another way or try again.'),
  lastSignInMethod: entry('sessions', 'BAD_REQUEST', 'Last sign-in method', 'Removing this would leave the account with no way to sign in.'),
  providerNotFound: entry('sessions', 'NOT_FOUND', 'Sign-in provider not found', 'No sign-in provider of this name is configured.'),
  providerNotLinked: entry('sessions', 'NOT_FOUND', 'Provider not linked', 'This sign-in provider is not linked to the account.'),
  providerCannotConfirm: entry('sessions', 'BAD_REQUEST', 'Provider cannot confirm', 'The provider is not linked to the account, so it cannot confirm it is you.'),
  linkConflict: entry('sessions', 'CONFLICT', 'Linked meanwhile', 'The identity or provider was linked by another request meanwhile; nothing was changed.'),
  serviceTokenRefused: entry('sessions', 'FORBIDDEN', 'Not for service tokens', 'This path is for people signed in, not for service tokens.'),

  // tokens: service tokens and the device sign-in that issues them.
  tokenLimit: entry('tokens', 'CONFLICT', 'Token limit', 'The account has the most live service tokens it may; revoke one first.'),
  tokenNotFound: entry('tokens', 'NOT_FOUND', 'Token not found', 'No service token of this account has this id.'),
  invalidTokenInput: entry('tokens', 'BAD_REQUEST', 'Invalid token settings', 'A service token’s name, scopes or lifetime break their rules.'),
  scopeInsufficient: entry('tokens', 'FORBIDDEN', 'Scope insufficient', 'The service token’s scopes do not reach an operation of the request.'),
  deviceCodeNotFound: entry('tokens', 'NOT_FOUND', 'Device code not found', 'No device sign-in request has this user code, or it expired.'),

  // tunnels: tunnels, their names, access and grants.
  tunnelNotFound: entry('tunnels', 'NOT_FOUND', 'Tunnel not found', 'No tunnel of this account has this id.'),
  tunnelLimit: entry('tunnels', 'CONFLICT', 'Tunnel limit', 'The account has the most tunnels it may; delete one first.'),
  invalidSubdomain: entry('tunnels', 'BAD_REQUEST', 'Invalid subdomain', 'The subdomain breaks its rules (length, characters, hyphens).'),
  subdomainTaken: entry('tunnels', 'CONFLICT', 'Subdomain taken', 'The account already has a tunnel with this subdomain.'),
  invalidCustomDomain: entry('tunnels', 'BAD_REQUEST', 'Invalid custom domain', 'The custom domain is not a host name the service can serve.'),
  customDomainTaken: entry('tunnels', 'CONFLICT', 'Custom domain taken', 'Another tunnel uses this custom domain.'),
  customDomainHeld: entry('tunnels', 'CONFLICT', 'Custom domain held', 'The custom domain was released recently and is held for 30 days.'),
  invalidTunnelSettings: entry('tunnels', 'BAD_REQUEST', 'Invalid tunnel settings', 'A tunnel setting (access, allowed emails, discoverable) breaks its rules.'),
  invalidPinnedTools: entry('tunnels', 'BAD_REQUEST', 'Invalid pinned tools', 'The pinned tools are not a tools/list result the card can carry.'),
  grantNotFound: entry('tunnels', 'NOT_FOUND', 'Grant not found', 'No grant or authorized application of this account or tunnel has this id.'),

  // cards: the Server Card hosts.
  cardNotFound: entry('cards', 'NOT_FOUND', 'Card not found', 'No discoverable tunnel answers this host and path (the same answer whether or not a tunnel exists).'),
  directoryUnreachable: entry('cards', 'UNAVAILABLE', 'Directory unreachable', 'The tunnel directory cannot be reached right now; try again shortly.', { status: 502 }),

  // oauth: the authorization server and its clients. Entries with an `error` answer in RFC 6749's format.
  oauthUnavailable: entry('oauth', 'UNAVAILABLE', 'OAuth unavailable', 'OAuth sign-in for tunnels is not available on this server right now.'),
  authorizationNotFound: entry('oauth', 'NOT_FOUND', 'Authorization request not found', 'The authorization request is unknown, expired, answered, or belongs to another session.'),
  authorizationRefused: entry('oauth', 'FORBIDDEN', 'Authorization refused', 'The account may not use this tunnel (its allowed emails do not include it).'),
  clientNotFound: entry('oauth', 'NOT_FOUND', 'Client not found', 'No OAuth client registered by the operator has this id.'),
  invalidClientMetadata: entry('oauth', 'BAD_REQUEST', 'Invalid client metadata', 'The client’s redirect URIs, name or type break their rules.'),
  oauthInvalidRequest: oauth('invalid_request', 'OAuth: invalid request', 'A parameter is missing, repeated or malformed, or the body is not a form.'),
  oauthInvalidClient: oauth('invalid_client', 'OAuth: invalid client', 'The client is unknown, or failed to authenticate.'),
  oauthIntrospectionRefused: oauth('invalid_client', 'OAuth: introspection refused', 'Token introspection needs the internal API token.', 401),
  oauthInvalidGrant: oauth('invalid_grant', 'OAuth: invalid grant', 'The code, device code or refresh token is unknown, used or not this client’s.'),
  oauthInvalidScope: oauth('invalid_scope', 'OAuth: invalid scope', 'A requested scope is unknown.'),
  oauthUnsupportedGrantType: oauth('unsupported_grant_type', 'OAuth: unsupported grant type', 'The token endpoint supports authorization_code, refresh_token and the device code grant.'),
  oauthAuthorizationPending: oauth('authorization_pending', 'OAuth: authorization pending', 'The device sign-in is not approved yet: poll again after the interval.'),
  oauthSlowDown: oauth('slow_down', 'OAuth: slow down', 'The device is polling too fast: add 5 seconds to the interval.'),
  oauthAccessDenied: oauth('access_denied', 'OAuth: access denied', 'The person denied the device sign-in.'),
  oauthExpiredToken: oauth('expired_token', 'OAuth: expired device code', 'The device code expired: start the sign-in again.'),
  oauthTemporarilyUnavailable: oauth('temporarily_unavailable', 'OAuth: too many requests', 'Too many requests from this network or on the service; Retry-After says when to try again.', 429),

  // status: the status page's incidents, maintenance, history and subscriptions.
  incidentNotFound: entry('status', 'NOT_FOUND', 'Incident not found', 'No incident or maintenance window has this id.'),
  incidentResolved: entry('status', 'CONFLICT', 'Incident resolved', 'A resolved incident takes no updates; open a new one.'),
  invalidIncident: entry('status', 'BAD_REQUEST', 'Invalid incident', 'An incident or maintenance field is missing or breaks its rules.'),
  invalidSubscription: entry('status', 'BAD_REQUEST', 'Invalid subscription', 'The status subscription request has no valid email address.'),
  historyUnavailable: entry('status', 'UNAVAILABLE', 'History unavailable', 'The 90-day status history cannot be read right now.'),

  // webhooks: the account's webhook endpoints and deliveries.
  webhookNotFound: entry('webhooks', 'NOT_FOUND', 'Webhook not found', 'No webhook endpoint of this account has this id.'),
  deliveryNotFound: entry('webhooks', 'NOT_FOUND', 'Delivery not found', 'No delivery of this endpoint has this id.'),
  webhookLimit: entry('webhooks', 'CONFLICT', 'Webhook limit', 'The account has the most webhook endpoints it may; delete one first.'),
  invalidWebhookUrl: entry('webhooks', 'BAD_REQUEST', 'Invalid webhook URL', 'The endpoint URL is not an https URL the service may deliver to.'),
  invalidWebhook: entry('webhooks', 'BAD_REQUEST', 'Invalid webhook settings', 'The events, description, enabled flag or page size break their rules.'),

  // orgs: organizations, their members, invitations and audit log.
  orgNotFound: entry('orgs', 'NOT_FOUND', 'Organization not found', 'No organization has this slug, or the caller is not one of its members.'),
  orgRoleRequired: entry('orgs', 'FORBIDDEN', 'Role required', 'The caller is a member of the organization, but its role (or token) does not allow this action.'),
  orgLimit: entry('orgs', 'CONFLICT', 'Organization limit', 'The account owns the most organizations it may; delete one first.'),
  lastOwner: entry('orgs', 'CONFLICT', 'Last owner', 'An organization keeps at least one owner: make someone else owner first.'),
  memberNotFound: entry('orgs', 'NOT_FOUND', 'Member not found', 'The account is not a member of this organization.'),
  invalidOrg: entry('orgs', 'BAD_REQUEST', 'Invalid organization settings', 'The name, role or confirmation breaks its rules.'),
  invitationNotFound: entry('orgs', 'NOT_FOUND', 'Invitation not found', 'No pending invitation of this organization has this id.'),
  invalidInvitation: entry('orgs', 'BAD_REQUEST', 'Invalid invitation', 'The invitation link is unknown, used, revoked or expired.'),
  invitationForOtherAddress: entry('orgs', 'FORBIDDEN', 'Invitation for another address', 'The invitation was sent to another address, or the account has not verified it.'),
  alreadyMember: entry('orgs', 'CONFLICT', 'Already a member', 'The account or address is already a member of the organization.'),
  memberLimit: entry('orgs', 'CONFLICT', 'Member limit', 'The organization has the most members it may; remove one first.'),
  invitationLimit: entry('orgs', 'RATE_LIMITED', 'Invitation limit', 'The organization has the most pending invitations, or sent the most this hour.'),
  ownsOrganizations: entry('orgs', 'CONFLICT', 'Owns organizations', 'The account is the last owner of organizations with other members: hand them over first.'),

  // limits: rate limits (429 with Retry-After).
  rateLimited: entry('limits', 'RATE_LIMITED', 'Rate limited', 'Too many attempts; Retry-After says when to try again.'),
  tooManyWrongCodes: entry('limits', 'RATE_LIMITED', 'Too many wrong codes', 'Too many wrong codes were tried; codes are refused until Retry-After has passed.'),
  tooManyEmails: entry('limits', 'RATE_LIMITED', 'Too many emails', 'Too many emails of this kind were asked for; Retry-After says when to try again.'),
} satisfies Record<string, Entry<ErrorCode>>;

type Catalog = typeof CATALOG;

/** `slugTaken` → `slug-taken`. */
const slugOf = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export const PROBLEMS = Object.fromEntries(Object.entries(CATALOG).map(([key, e]) => [key, Object.freeze({ slug: slugOf(key), ...e })])) as {
  readonly [K in keyof Catalog]: ProblemType<Catalog[K]['code']> & Readonly<Pick<Catalog[K], Extract<'oauthError', keyof Catalog[K]>>>;
};

export const PROBLEM_LIST: readonly ProblemType[] = Object.values(PROBLEMS);

const BY_SLUG = new Map(PROBLEM_LIST.map((p) => [p.slug, p]));
export const problemBySlug = (slug: string): ProblemType | undefined => BY_SLUG.get(slug);

/** The path of every problem type's URI under BASE_URL. */
export const PROBLEMS_PATH = '/problems';
export const problemTypeUri = (baseUrl: string, p: ProblemType): string => `${baseUrl}${PROBLEMS_PATH}/${p.slug}`;
