// The two identity providers, built from config with arctic's generic OAuth2Client: arctic's
// Google and GitHub classes hard-code their endpoints, and API.md lets every endpoint be
// overridden (GitHub Enterprise Server, proxies, tests). The wire behaviour is the same as those
// classes': client_secret_basic at the token endpoint, PKCE (S256) for Google, none for GitHub.
import { CodeChallengeMethod, OAuth2Client, generateCodeVerifier } from 'arctic';
import type { Config } from '../../infra/config.js';
import { ProviderFailure, type ProviderIdentity, type ProviderName, withProviderTimeout } from './identity.js';
import { fetchGitHubIdentity, fetchGoogleIdentity } from './profiles.js';

export interface SsoProvider {
  name: ProviderName;
  /** The provider's authorization URL and the PKCE verifier to keep server-side (null: no PKCE). */
  authorize(state: string): { url: URL; codeVerifier: string | null };
  /** Exchanges the code and reads the identity. Throws on any provider failure. */
  identify(code: string, codeVerifier: string | null): Promise<ProviderIdentity>;
}

/** The access token, refusing a 200 answer that carries an OAuth error (GitHub's habit). */
function accessTokenOf(data: object): string {
  const d = data as { access_token?: unknown; error?: unknown };
  if (typeof d.error === 'string') throw new ProviderFailure(`token endpoint error: ${d.error}`);
  if (typeof d.access_token !== 'string' || d.access_token === '') throw new ProviderFailure('no access token');
  return d.access_token;
}

export function createProviders(config: Config): Map<ProviderName, SsoProvider> {
  const providers = new Map<ProviderName, SsoProvider>();
  const callback = (name: ProviderName) => `${config.baseUrl}/auth/oauth/${name}/callback`;
  const google = config.google;
  if (google) {
    const client = new OAuth2Client(google.clientId, google.clientSecret, callback('google'));
    providers.set('google', {
      name: 'google',
      authorize(state) {
        const codeVerifier = generateCodeVerifier();
        const url = client.createAuthorizationURLWithPKCE(google.authorizationUrl, state, CodeChallengeMethod.S256, codeVerifier, [
          'openid',
          'email',
          'profile',
        ]);
        return { url, codeVerifier };
      },
      async identify(code, codeVerifier) {
        const tokens = await withProviderTimeout(client.validateAuthorizationCode(google.tokenUrl, code, codeVerifier), 'token request');
        return fetchGoogleIdentity(google.userinfoUrl, accessTokenOf(tokens.data));
      },
    });
  }
  const github = config.github;
  if (github) {
    const client = new OAuth2Client(github.clientId, github.clientSecret, callback('github'));
    providers.set('github', {
      name: 'github',
      authorize(state) {
        return { url: client.createAuthorizationURL(github.authorizationUrl, state, ['read:user', 'user:email']), codeVerifier: null };
      },
      async identify(code) {
        const tokens = await withProviderTimeout(client.validateAuthorizationCode(github.tokenUrl, code, null), 'token request');
        return fetchGitHubIdentity(github.apiUrl, accessTokenOf(tokens.data));
      },
    });
  }
  return providers;
}
