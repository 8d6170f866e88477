// A local fake Google and a local fake GitHub on loopback, speaking the endpoints arctic and the
// profile reader call: authorize (redirects back with a code), token (client_secret_basic, PKCE
// checked for Google, GitHub's 200-with-error habit), Google's userinfo, GitHub's /user and
// /user/emails under a GitHub Enterprise style /api/v3 base. Tests choose who signs in next.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lazyFixture, useFixture } from './fixture.js';

export interface FakeUser {
  id: string;
  email: string;
  emailVerified: boolean;
}

interface Issued {
  provider: 'google' | 'github';
  user: FakeUser;
  clientId: string;
  redirectUri: string;
  challenge: string | null;
}

export interface FakeProviderState {
  /** Who consents at the next authorize request. */
  user: FakeUser | null;
  /** The next authorize request answers error=access_denied. */
  deny: boolean;
  /** The token endpoint answers this status (e.g. 500) instead of tokens. */
  tokenStatus: number | null;
  /** Every access token handed out, to check none of them reaches the browser. */
  accessTokens: string[];
  /** Every PKCE verifier received at the token endpoint. */
  verifiers: string[];
}

const CLIENT = { google: ['google-client', 'google-secret'], github: ['github-client', 'github-secret'] } as const;

/** What tests use of the fakes: who signs in next, what went through, where they listen. */
export type Providers = Pick<FakeProviders, 'google' | 'github' | 'url' | 'env'>;

/** Both fakes for the tests of the file; start the server after them (its env names their URLs). */
export function useFakeProviders(): Providers {
  return lazyFixture(useFixture(() => FakeProviders.start(), (f) => f.close()));
}

const newState = (): FakeProviderState => ({ user: null, deny: false, tokenStatus: null, accessTokens: [], verifiers: [] });

export class FakeProviders {
  readonly google = newState();
  readonly github = newState();
  private readonly codes = new Map<string, Issued>();
  private readonly tokens = new Map<string, FakeUser>();
  private counter = 0;
  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<FakeProviders> {
    let self: FakeProviders | null = null;
    const server = createServer((req, res) => {
      void self!.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FakeProviders(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** The server's environment: both providers enabled, every endpoint pointing here. */
  env(only?: 'google' | 'github'): Record<string, string> {
    const google = {
      GOOGLE_CLIENT_ID: CLIENT.google[0],
      GOOGLE_CLIENT_SECRET: CLIENT.google[1],
      GOOGLE_AUTHORIZATION_URL: `${this.url}/google/o/oauth2/v2/auth`,
      GOOGLE_TOKEN_URL: `${this.url}/google/token`,
      GOOGLE_USERINFO_URL: `${this.url}/google/v1/userinfo`,
    };
    const github = {
      GITHUB_CLIENT_ID: CLIENT.github[0],
      GITHUB_CLIENT_SECRET: CLIENT.github[1],
      GITHUB_AUTHORIZATION_URL: `${this.url}/github/login/oauth/authorize`,
      GITHUB_TOKEN_URL: `${this.url}/github/login/oauth/access_token`,
      GITHUB_API_URL: `${this.url}/github/api/v3`,
    };
    if (only === 'google') return google;
    if (only === 'github') return github;
    return { ...google, ...github };
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private next(prefix: string): string {
    this.counter++;
    return `${prefix}-${this.counter}-${Math.random().toString(36).slice(2)}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const provider = url.pathname.startsWith('/google/') ? 'google' : 'github';
    const state = this[provider];
    const path = url.pathname.slice(provider.length + 1);

    if (req.method === 'GET' && (path === '/o/oauth2/v2/auth' || path === '/login/oauth/authorize')) {
      const q = url.searchParams;
      const back = new URL(q.get('redirect_uri') ?? '');
      back.searchParams.set('state', q.get('state') ?? '');
      if (state.deny || !state.user) {
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = this.next('code');
        this.codes.set(code, {
          provider,
          user: state.user,
          clientId: q.get('client_id') ?? '',
          redirectUri: q.get('redirect_uri') ?? '',
          challenge: q.get('code_challenge_method') === 'S256' ? q.get('code_challenge') : null,
        });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.href });
      return void res.end();
    }

    if (req.method === 'POST' && (path === '/token' || path === '/login/oauth/access_token')) {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (state.tokenStatus) return json(state.tokenStatus, { error: 'server_error' });
      const refuse = (error: string) => (provider === 'github' ? json(200, { error }) : json(400, { error }));
      const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
      if (basic !== CLIENT[provider].join(':')) return refuse('invalid_client');
      const code = form.get('code') ?? '';
      const issued = this.codes.get(code);
      this.codes.delete(code);
      if (!issued || issued.provider !== provider || issued.redirectUri !== form.get('redirect_uri')) {
        return refuse(provider === 'github' ? 'bad_verification_code' : 'invalid_grant');
      }
      if (provider === 'google') {
        const verifier = form.get('code_verifier') ?? '';
        state.verifiers.push(verifier);
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!issued.challenge || challenge !== issued.challenge) return refuse('invalid_grant');
      }
      const accessToken = this.next(`${provider}-access`);
      state.accessTokens.push(accessToken);
      this.tokens.set(accessToken, issued.user);
      return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3599, scope: 'email' });
    }

    const user = this.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return json(401, { error: 'invalid_token' });
    if (path === '/v1/userinfo') {
      return json(200, { sub: user.id, email: user.email, email_verified: user.emailVerified, name: 'Test User' });
    }
    if (path === '/api/v3/user') {
      if (req.headers['user-agent'] === undefined) return json(403, { message: 'User-Agent required' });
      return json(200, { id: Number(user.id), login: `user${user.id}`, email: null });
    }
    if (path === '/api/v3/user/emails') {
      return json(200, [
        { email: `noreply-${user.id}@users.noreply.github.com`, primary: false, verified: true, visibility: null },
        { email: user.email, primary: true, verified: user.emailVerified, visibility: 'private' },
      ]);
    }
    json(404, { message: 'Not Found' });
  }
}
