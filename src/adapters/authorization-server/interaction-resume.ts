// The consent's resume (ADR 14): the console approves or denies a request through this project's
// API, not by sending the browser back to oidc-provider, so the authorization is resumed in
// process. The provider binds an interaction to the browser that started it with a signed resume
// cookie and answers its resume endpoint with the client's redirect; this class plays that
// browser: it signs the cookie as the provider would, runs the resume request through the
// provider (light-my-request) and reads the Location it answers.
//
// It is the only place that knows the provider's cookie names and signing scheme (koa's cookies
// with keygrip: `<name>.sig` is HMAC-SHA1 of `<name>=<value>`, base64url), which are the library's
// internals, not its API: WRITTEN_FOR names the versions they were read from, and
// test/adapters/authorization-server/interaction-resume.test.ts fails when the installed version
// is another, so the scheme is read again before an upgrade ships.
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import inject from 'light-my-request';
import type { Configuration } from 'oidc-provider';
import type { DomainDeps } from '../../domain/context.js';

/** The provider's major.minor this scheme was read from (node_modules/oidc-provider/lib/actions/authorization/resume.js). */
export const WRITTEN_FOR_OIDC_PROVIDER = '9.13';

/** Cookie names, fixed so the resume can be signed here. */
const COOKIE_NAMES = { interaction: 'oauth_interaction', resume: 'oauth_resume', session: 'oauth_session' } as const;

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export class InteractionResume {
  /** `key`: what the provider signs its cookies with (cookieSecretOf). */
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  /** The key every instance derives from ENCRYPTION_KEY, so any of them can resume any request. */
  static cookieSecretOf(deps: Pick<DomainDeps, 'cipher'>): string {
    return deps.cipher.derive('oauth-cookies').toString('base64url');
  }

  /** The provider's `cookies` configuration this resume works with. */
  cookies(secure: boolean): NonNullable<Configuration['cookies']> {
    return {
      keys: [this.key],
      names: COOKIE_NAMES,
      long: { signed: true, secure, sameSite: 'lax' },
      short: { signed: true, secure, sameSite: 'lax' },
    };
  }

  /**
   * Resumes the interaction `uid` (its result already saved) at `returnTo`, the resume URL the
   * provider gave it, through `handler` (the provider's callback): the provider's status and the
   * Location it redirects to, null when it does not redirect (the interaction is gone, say).
   */
  async resume(handler: Handler, uid: string, returnTo: string): Promise<{ status: number; location: string | null }> {
    const name = COOKIE_NAMES.resume;
    const signature = createHmac('sha1', this.key).update(`${name}=${uid}`).digest('base64url');
    const base = new URL(this.baseUrl);
    const res = await inject(handler, {
      method: 'GET',
      url: new URL(returnTo).pathname,
      headers: {
        host: base.host,
        cookie: `${name}=${uid}; ${name}.sig=${signature}`,
        ...(base.protocol === 'https:' ? { 'x-forwarded-proto': 'https' } : {}),
      },
    });
    const location = res.headers.location;
    const redirected = (res.statusCode === 302 || res.statusCode === 303) && typeof location === 'string';
    return { status: res.statusCode, location: redirected ? location : null };
  }
}
