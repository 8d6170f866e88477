// Standard Webhooks 1.0 signing (the scheme Svix, ngrok, Supabase and others share): the secret is
// `whsec_` + base64 of random bytes; a delivery carries `webhook-id`, `webhook-timestamp` (seconds)
// and `webhook-signature`, the `v1,<base64 HMAC-SHA256>` of "<id>.<timestamp>.<body>" under each
// secret that signs (two, space-separated, for 24 hours after a rotation). The HMAC is the
// `standardwebhooks` package's, the same code receivers verify with.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** 32 random bytes (the scheme asks for 24 or more). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The three headers of one delivery, signed by every secret in `secrets` (at least one). */
export function signedHeaders(eventId: string, at: Date, body: string, secrets: readonly string[]): Record<string, string> {
  // The scheme's timestamp is whole seconds; the signature covers exactly that value.
  const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
  const signatures = secrets.map((s) => new Webhook(s).sign(eventId, timestamp, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp.getTime() / 1000),
    'webhook-signature': signatures.join(' '),
  };
}
