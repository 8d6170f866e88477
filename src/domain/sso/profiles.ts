// Reading who signed in, with the access token (which stays in this module: never stored, never
// logged). Google: the OpenID userinfo endpoint (sub, email, email_verified). GitHub: /user for
// the stable numeric id, /user/emails for the primary address and whether it is verified.
import { parseEmail } from '../email-address.js';
import { ProviderFailure, type ProviderIdentity, withProviderTimeout } from './identity.js';

async function getJson(url: string, accessToken: string, what: string): Promise<unknown> {
  const response = await withProviderTimeout(
    fetch(url, {
      headers: {
        authorization: `Bearer ${accessToken}`,
        accept: 'application/json',
        // GitHub refuses API requests without a User-Agent.
        'user-agent': 'tunnel-service-sso',
      },
    }),
    what,
  );
  if (!response.ok) {
    await response.body?.cancel();
    throw new ProviderFailure(`${what} answered ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new ProviderFailure(`${what} answered something that is not JSON`);
  }
}

const asRecord = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The address as our accounts accept it (API.md section 3 limits), or a provider failure. */
function usableEmail(v: unknown): string {
  try {
    if (typeof v === 'string') return parseEmail(v);
  } catch {
    // Falls through: an address we could not store is as good as none.
  }
  throw new ProviderFailure('the provider reported no usable email');
}

export async function fetchGoogleIdentity(userinfoUrl: string, accessToken: string): Promise<ProviderIdentity> {
  const info = asRecord(await getJson(userinfoUrl, accessToken, 'userinfo'));
  if (typeof info.sub !== 'string' || info.sub === '') throw new ProviderFailure('userinfo has no subject');
  return {
    provider: 'google',
    providerUserId: info.sub,
    email: usableEmail(info.email),
    // The claim is a boolean in OpenID Connect; some proxies send the string "true".
    emailVerified: info.email_verified === true || info.email_verified === 'true',
  };
}

export async function fetchGitHubIdentity(apiUrl: string, accessToken: string): Promise<ProviderIdentity> {
  const user = asRecord(await getJson(`${apiUrl}/user`, accessToken, 'GitHub /user'));
  if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new ProviderFailure('GitHub /user has no id');
  const emails = await getJson(`${apiUrl}/user/emails`, accessToken, 'GitHub /user/emails');
  const primary = (Array.isArray(emails) ? emails : []).map(asRecord).find((e) => e.primary === true);
  if (!primary) throw new ProviderFailure('GitHub reported no primary email');
  return {
    provider: 'github',
    providerUserId: String(user.id),
    email: usableEmail(primary.email),
    emailVerified: primary.verified === true,
  };
}
