// The emails of SPEC section 6. Each has a kind (sent as X-Email-Kind), a subject, and text and
// HTML bodies; links point at APP_URL with the credential in the `token` query parameter.
import { escapeHtml } from '../html/escape.js';

export type EmailKind = 'verify-email' | 'welcome' | 'login-alert' | 'confirm-email-change' | 'reset-password';

export interface RenderedEmail {
  kind: EmailKind;
  subject: string;
  text: string;
  html: string;
}

export interface MailContext {
  serviceName: string;
  appUrl: string;
}

export function emailLink(ctx: MailContext, path: string, token: string): string {
  return `${ctx.appUrl}${path}?token=${encodeURIComponent(token)}`;
}

function render(kind: EmailKind, subject: string, paragraphs: string[], link?: { url: string; label: string }): RenderedEmail {
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
