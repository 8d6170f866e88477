// Client metadata as MCP clients send it (API.md section 13a), made into what this server
// registers. oidc-provider validates a dynamic registration and a client ID metadata document
// with one schema and lets an extraClientMetadata validator change the metadata before its own
// checks run; this is that validator. RFC 7591 section 3.2.1 lets the server replace values, and
// the registration's answer shows what was registered.
//   - `scope` with values of scopes_supported (the MCP SDKs copy `mcp` from the resource
//     metadata): accepted, and not kept as a restriction (scopes are per resource here).
//   - `grant_types` with the device code grant (VS Code lists it): accepted and left out: the
//     device grant is the tunnel CLI's (the provider's one static client), not a registered client's.
//   - a `token_endpoint_auth_method` other than `none` on a public client: registered as `none`.
//     Only a client the operator registered (POST /internal/oauth/clients) keeps a secret.
//   - no `application_type` and only loopback or private-use redirect URIs: a native client
//     (RFC 8252: any loopback port at authorize). A web client's redirect URIs are https, or
//     http on a loopback address; plain http elsewhere is refused (invalid_redirect_uri).
import type { errors as OidcErrors, KoaContextWithOIDC } from 'oidc-provider';
import { MCP_SCOPE } from '../../domain/cards/card.js';
import { DEVICE_CLIENT_ID, DEVICE_CODE_GRANT } from '../../domain/device-grant/device-grant.js';
import { TOKEN_SCOPES } from '../../domain/tokens/scopes.js';
import { OPERATOR_CLIENT_FLAG, OPERATOR_CLIENT_PREFIX } from '../../domain/oauth/clients.js';

const SUPPORTED_SCOPES = new Set<string>([MCP_SCOPE, ...TOKEN_SCOPES]);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

const parsed = (uri: unknown): URL | null => (typeof uri === 'string' ? URL.parse(uri) : null);
const isLoopback = (u: URL) => u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
/** A private-use scheme (`cursor://…`, `com.example.app:/cb`): anything but the web's own. */
const isPrivateUse = (u: URL) => !['http:', 'https:', 'javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:'].includes(u.protocol);

export function normalizeClientMetadata(errors: typeof OidcErrors, ctx: KoaContextWithOIDC | undefined, flag: unknown, metadata: Record<string, unknown>): void {
  const registering = ctx?.oidc?.route === 'registration';
  const clientId = metadata.client_id;
  const operator = flag === true && !registering && typeof clientId === 'string' && clientId.startsWith(OPERATOR_CLIENT_PREFIX);
  if (!operator) {
    delete metadata[OPERATOR_CLIENT_FLAG];
    if (metadata.token_endpoint_auth_method !== undefined && metadata.token_endpoint_auth_method !== 'none') metadata.token_endpoint_auth_method = 'none';
    delete metadata.client_secret;
  }

  if (typeof metadata.scope === 'string') {
    const scopes = metadata.scope.split(' ').filter(Boolean);
    // Unknown values stay, for the provider to refuse.
    if (scopes.every((s) => SUPPORTED_SCOPES.has(s))) delete metadata.scope;
  }

  if (Array.isArray(metadata.grant_types) && clientId !== DEVICE_CLIENT_ID) metadata.grant_types = metadata.grant_types.filter((g) => g !== DEVICE_CODE_GRANT);

  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris.map(parsed) : [];
  if (uris.some((u) => u === null)) return; // the provider says which is not a URI
  const urls = uris as URL[];
  // Decided when the client is registered (a stored registration keeps what it got) or each time
  // its metadata document is read (the provider applies `web` when the document says nothing).
  const document = typeof clientId === 'string' && clientId.startsWith('https://');
  const unstated = registering ? (ctx?.oidc?.body as Record<string, unknown> | undefined)?.application_type === undefined : document;
  if (unstated && urls.length > 0 && urls.every((u) => isLoopback(u) || isPrivateUse(u))) metadata.application_type = 'native';
  if ((metadata.application_type ?? 'web') === 'web') {
    const plain = urls.find((u) => u.protocol === 'http:' && !isLoopback(u));
    if (plain) throw new errors.InvalidRedirectUri(`redirect_uris of a web client must use https (or http on a loopback address): ${plain.href}`);
  }
}
