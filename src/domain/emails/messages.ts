// The emails of SPEC section 6 and the notices of API.md section 10: domain policy (which kinds
// exist, what each says). Each has a kind (sent as X-Email-Kind), a subject, and text and HTML
// bodies; links point at APP_URL with the credential in the `token` query parameter.
// infra/mail only stores and sends what these render.
import { escapeHtml } from '../../infra/html/escape.js';
import type { RenderedEmail } from '../../infra/mail/outbox.js';

export type EmailKind = 'verify-email' | 'welcome' | 'login-alert' | 'confirm-email-change' | 'reset-password'
  | 'passkey-added'
  | 'password-changed'
  | 'email-changed'
  | 'provider-linked'
  | 'mfa-enabled'
  | 'mfa-disabled'
  | 'recovery-codes-regenerated'
  | 'mfa-failed'
  | 'token-created'
  | 'webhook-disabled'
  | 'status-subscribe-confirm'
  | 'status-incident'
  | 'org-invitation';

export interface MailContext {
  serviceName: string;
  appUrl: string;
}

export function emailLink(ctx: MailContext, path: string, token: string): string {
  return `${ctx.appUrl}${path}?token=${encodeURIComponent(token)}`;
}

function render(kind: EmailKind, subject: string, paragraphs: string[], link?: { url: string; label: string }): RenderedEmail & { kind: EmailKind } {
  const text = [...paragraphs, ...(link ? [`${link.label}: ${link.url}`] : [])].join('\n\n') + '\n';
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    (link ? `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>` : '') +
    `</body></html>`;
  return { kind, subject, text, html };
}

export function verifyEmail(ctx: MailContext, token: string): RenderedEmail {
  return render(
    'verify-email',
    `Verify your email for ${ctx.serviceName}`,
    [
      `Confirm that this address belongs to your ${ctx.serviceName} account.`,
      'The link works once and expires in 24 hours. If you did not sign up, ignore this email.',
    ],
    { url: emailLink(ctx, '/verify-email', token), label: 'Verify email' },
  );
}

export function welcome(ctx: MailContext): RenderedEmail {
  return render('welcome', `Welcome to ${ctx.serviceName}`, [
    `Your email is verified. Welcome to ${ctx.serviceName}!`,
    'Publish an MCP server from your machine as a public tunnel from the dashboard or the CLI.',
  ]);
}

export function loginAlert(ctx: MailContext, info: { at: Date; ip: string; userAgent: string }): RenderedEmail {
  return render('login-alert', `New sign-in to your ${ctx.serviceName} account`, [
    `Your account was signed in from a network we have not seen before.`,
    `When: ${info.at.toISOString()}\nNetwork: ${info.ip}\nBrowser: ${info.userAgent || 'unknown'}`,
    'If this was you, nothing to do. If not, reset your password and sign out every session from the dashboard.',
  ]);
}

export function confirmEmailChange(ctx: MailContext, token: string, newEmail: string): RenderedEmail {
  return render(
    'confirm-email-change',
    `Confirm your new email for ${ctx.serviceName}`,
    [
      `Someone asked to change the email of a ${ctx.serviceName} account to ${newEmail}.`,
      'Your current address stays in effect until you confirm. The link works once and expires in 24 hours.',
    ],
    { url: emailLink(ctx, '/confirm-email-change', token), label: 'Confirm new email' },
  );
}

export function resetPassword(ctx: MailContext, token: string): RenderedEmail {
  return render(
    'reset-password',
    `Reset your ${ctx.serviceName} password`,
    [
      'Someone asked to reset the password of your account. The link works once and expires in 1 hour.',
      'Resetting signs out every session. If you did not ask for this, ignore this email.',
    ],
    { url: emailLink(ctx, '/reset-password', token), label: 'Reset password' },
  );
}

/** API.md section 18: an invitation to join an organization, to the invited address. */
export function orgInvitation(ctx: MailContext, token: string, info: { orgName: string; orgSlug: string; role: string; invitedBy: string; expiresAt: Date }): RenderedEmail {
  return render(
    'org-invitation',
    `${info.invitedBy} invited you to ${info.orgName} on ${ctx.serviceName}`,
    [
      `${info.invitedBy} invited this address to join the organization ${info.orgName} (${info.orgSlug}) on ${ctx.serviceName} as ${info.role === 'admin' ? 'an admin' : `a ${info.role}`}.`,
      `Open the link signed in to the ${ctx.serviceName} account whose verified address is this one (or create it), then accept or decline. The link works once and expires on ${info.expiresAt.toISOString()} (in 7 days).`,
      'If you do not know this organization, ignore this email: nothing happens unless you accept.',
    ],
    { url: emailLink(ctx, '/invitations/accept', token), label: 'See the invitation' },
  );
}

// Notices (API.md section 10): a sensitive change told to the address that owns the account.
// None carries a credential or a link that acts; each says what to do if it was not you.
const NOT_YOU = 'If this was not you, reset your password at once and sign out every session from the dashboard.';

export function passwordChanged(ctx: MailContext, info: { at: Date; how: 'changed' | 'reset' }): RenderedEmail {
  return render('password-changed', `Your ${ctx.serviceName} password was ${info.how}`, [
    `The password of your ${ctx.serviceName} account was ${info.how} at ${info.at.toISOString()}. Every other session was signed out.`,
    NOT_YOU,
  ]);
}

export function emailChanged(ctx: MailContext, info: { at: Date; newEmail: string }): RenderedEmail {
  return render('email-changed', `The email of your ${ctx.serviceName} account was changed`, [
    `At ${info.at.toISOString()} the email address of your ${ctx.serviceName} account was changed to ${info.newEmail}. This address no longer receives its emails.`,
    'If this was not you, contact support from this address at once: your account may have been taken over.',
  ]);
}

export function providerLinked(ctx: MailContext, info: { at: Date; provider: string; providerEmail: string }): RenderedEmail {
  const name = info.provider === 'github' ? 'GitHub' : info.provider === 'google' ? 'Google' : info.provider;
  return render('provider-linked', `${name} sign-in was added to your ${ctx.serviceName} account`, [
    `At ${info.at.toISOString()} the ${name} account ${info.providerEmail} was linked to your ${ctx.serviceName} account and can now sign in to it.`,
    NOT_YOU,
  ]);
}

export function passkeyAdded(ctx: MailContext, info: { at: Date; name: string; ip: string; userAgent: string }): RenderedEmail {
  return render('passkey-added', `A passkey was added to your ${ctx.serviceName} account`, [
    `At ${info.at.toISOString()} the passkey "${info.name}" was added to your ${ctx.serviceName} account. It can now sign in without a password.`,
    `Network: ${info.ip}\nBrowser: ${info.userAgent || 'unknown'}`,
    'If this was not you, remove the passkey from the dashboard, reset your password and sign out every session.',
  ]);
}

export function mfaEnabled(ctx: MailContext, info: { at: Date }): RenderedEmail {
  return render('mfa-enabled', `Two-step sign-in was turned on for your ${ctx.serviceName} account`, [
    `At ${info.at.toISOString()} two-step sign-in was turned on for your ${ctx.serviceName} account. Signing in now asks for a code from your authenticator app or a recovery code.`,
    'Keep your recovery codes somewhere safe: each works once if you lose your authenticator.',
    NOT_YOU,
  ]);
}

export function mfaDisabled(ctx: MailContext, info: { at: Date }): RenderedEmail {
  return render('mfa-disabled', `Two-step sign-in was turned off for your ${ctx.serviceName} account`, [
    `At ${info.at.toISOString()} two-step sign-in was turned off for your ${ctx.serviceName} account. Signing in no longer asks for a code.`,
    NOT_YOU,
  ]);
}

export function recoveryCodesRegenerated(ctx: MailContext, info: { at: Date; ip: string; userAgent: string }): RenderedEmail {
  return render('recovery-codes-regenerated', `New recovery codes were made for your ${ctx.serviceName} account`, [
    `At ${info.at.toISOString()} new recovery codes were made for your ${ctx.serviceName} account. The earlier codes no longer work.`,
    `Network: ${info.ip}\nBrowser: ${info.userAgent || 'unknown'}`,
    NOT_YOU,
  ]);
}

/** `org`: the slug of the organization whose token it is (the notice goes to the member who made it). */
export function tokenCreated(ctx: MailContext, info: { at: Date; name: string; scopes: readonly string[]; ip: string; userAgent: string; org?: string }): RenderedEmail {
  const whose = info.org === undefined ? `your ${ctx.serviceName} account` : `the organization ${info.org} on ${ctx.serviceName}, by your account`;
  return render('token-created', `A service token was created for ${info.org === undefined ? `your ${ctx.serviceName} account` : `the organization ${info.org}`}`, [
    `At ${info.at.toISOString()} the service token "${info.name}" was created for ${whose}, with access to: ${info.scopes.join(', ')}.`,
    `Network: ${info.ip}\nBrowser: ${info.userAgent || 'unknown'}`,
    info.org === undefined
      ? 'If this was not you, revoke the token under Access tokens in the dashboard, reset your password and sign out every session.'
      : 'If this was not you, revoke the token under the organization’s Tokens in the dashboard, reset your password and sign out every session.',
  ]);
}

/**
 * Names the endpoint by its host only: a receiver's path often carries its own secret. `org`: the
 * slug of the organization whose endpoint it is (the notice goes to its owners and admins).
 */
export function webhookDisabled(ctx: MailContext, info: { host: string; at: Date; org?: string }): RenderedEmail {
  const whose = info.org === undefined ? `your ${ctx.serviceName} account` : `the organization ${info.org}`;
  return render('webhook-disabled', `A webhook endpoint of ${whose} was disabled`, [
    `At ${info.at.toISOString()} ${info.org === undefined ? 'your webhook endpoint' : `a webhook endpoint of the organization ${info.org}`} at ${info.host} was disabled: every delivery to it has failed for five days.`,
    'Events are no longer sent to it. Once it answers again, turn it back on under Webhooks in the dashboard; deliveries still pending then go out, and failed ones can be retried from its delivery log.',
  ]);
}

export function mfaFailed(ctx: MailContext, info: { at: Date; ip: string; userAgent: string }): RenderedEmail {
  return render('mfa-failed', `Wrong two-step codes were entered for your ${ctx.serviceName} account`, [
    `Several wrong two-step codes were entered for your ${ctx.serviceName} account within an hour, the latest at ${info.at.toISOString()}.`,
    `Network: ${info.ip}\nBrowser: ${info.userAgent || 'unknown'}`,
    'Whoever entered them had already passed the first step (your password or a provider sign-in) or holds a signed-in session. After 10 wrong codes in an hour, every code is refused until the hour ends.',
    'If this was not you, change your password at once and sign out every session from the dashboard.',
  ]);
}

/** API.md section 17: the double opt-in link, on the status page's host (`zoneOrigin`). */
export function statusSubscribeConfirm(ctx: MailContext, zoneOrigin: string, token: string): RenderedEmail {
  return render(
    'status-subscribe-confirm',
    `Confirm your subscription to ${ctx.serviceName} status updates`,
    [
      `Someone, probably you, asked for email updates about incidents and maintenance on the ${ctx.serviceName} status page with this address.`,
      'The link works once and expires in 24 hours. If you did not ask, ignore this email: nothing is sent without the confirmation.',
    ],
    { url: `${zoneOrigin}/status/subscribe/confirm?token=${encodeURIComponent(token)}`, label: 'Confirm the subscription' },
  );
}

/** An incident, one of its updates, or a maintenance, with one-click unsubscribe (RFC 8058). */
export function statusIncident(
  ctx: MailContext,
  zoneOrigin: string,
  unsubscribeToken: string,
  notice: { subject: string; lines: string[] },
): RenderedEmail {
  const unsubscribe = `${zoneOrigin}/status/unsubscribe?token=${encodeURIComponent(unsubscribeToken)}`;
  const email = render('status-incident', `[${ctx.serviceName} status] ${notice.subject}`, [
    ...notice.lines,
    `Status page: ${zoneOrigin}/status`,
    'You get these emails because this address subscribed to the status page.',
  ], { url: unsubscribe, label: 'Unsubscribe' });
  return { ...email, headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } };
}
