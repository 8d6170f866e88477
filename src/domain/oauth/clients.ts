// Operator-registered clients (API.md section 13a): for clients that cannot register themselves,
// the operator registers them with INTERNAL_API_TOKEN. A confidential one gets a secret, shown in
// the answer only and kept sealed with ENCRYPTION_KEY (the authorization server must read it back
// to compare); it authenticates at the token endpoint with client_secret_basic or _post. Deleting
// a client revokes its grants and everything they issued.
import type { DomainDeps } from '../context.js';
import { badRequest, notFound, PROBLEMS } from '../errors.js';
import { generateToken } from '../../infra/crypto/tokens.js';
import { invalidateIntrospections } from './introspection-cache.js';
import { deleteClientModels, insertClient, selectOperatorClients, type StoredClient } from './store.js';

/** The metadata property only an operator registration sets: this client keeps its secret. */
export const OPERATOR_CLIENT_FLAG = 'operator_registered';

/** Operator-registered client ids start so: dynamic ones are the provider's, metadata documents' are URLs. */
export const OPERATOR_CLIENT_PREFIX = 'op_';

const MAX_REDIRECT_URIS = 10;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const WEB_ONLY = new Set(['javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:']);

export interface OperatorClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  applicationType: 'web' | 'native';
  confidential: boolean;
  createdAt: Date;
}

type ClientDeps = Pick<DomainDeps, 'db' | 'cipher' | 'clock'>;

function parseRedirectUris(raw: unknown, applicationType: 'web' | 'native'): string[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_REDIRECT_URIS) throw badRequest(PROBLEMS.invalidClientMetadata, `redirect_uris: a list of 1 to ${MAX_REDIRECT_URIS} URIs.`);
  return raw.map((uri) => {
    const url = typeof uri === 'string' && uri.length <= 2000 ? URL.parse(uri) : null;
    if (!url || url.hash !== '' || WEB_ONLY.has(url.protocol)) throw badRequest(PROBLEMS.invalidClientMetadata, `redirect_uris: ${JSON.stringify(uri)} is not a redirect URI.`);
    const loopback = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
    if (applicationType === 'web' && url.protocol !== 'https:' && !loopback) throw badRequest(PROBLEMS.invalidClientMetadata, `redirect_uris: a web client's URIs use https (${url.href}).`);
    if (applicationType === 'native' && url.protocol === 'http:' && !loopback) throw badRequest(PROBLEMS.invalidClientMetadata, `redirect_uris: a native client's http URIs are on loopback (${url.href}).`);
    return uri as string;
  });
}

export async function registerOperatorClient(deps: ClientDeps, input: Record<string, unknown>): Promise<{ client: OperatorClient; secret: string | null }> {
  const name = input.client_name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100) throw badRequest(PROBLEMS.invalidClientMetadata, 'client_name: 1 to 100 characters.');
  const type = input.application_type ?? 'web';
  if (type !== 'web' && type !== 'native') throw badRequest(PROBLEMS.invalidClientMetadata, 'application_type: "web" or "native".');
  const confidential = input.confidential ?? false;
  if (typeof confidential !== 'boolean') throw badRequest(PROBLEMS.invalidClientMetadata, 'confidential: true or false.');
  const redirectUris = parseRedirectUris(input.redirect_uris, type);
  const clientId = `${OPERATOR_CLIENT_PREFIX}${generateToken(16)}`;
  const secret = confidential ? generateToken(32) : null;
  const createdAt = deps.clock();
  const stored: StoredClient = {
    client_id: clientId,
    client_name: name.trim(),
    redirect_uris: redirectUris,
    application_type: type,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // Sent as client_secret_post, it reaches the provider as Basic (the token route converts it).
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    [OPERATOR_CLIENT_FLAG]: true,
    client_id_issued_at: Math.floor(createdAt.getTime() / 1000),
    ...(secret ? { client_secret: deps.cipher.seal(secret) } : {}),
  };
  await insertClient(deps.db, clientId, stored);
  return { client: { clientId, clientName: stored.client_name, redirectUris, applicationType: type, confidential, createdAt }, secret };
}

export async function listOperatorClients(deps: Pick<DomainDeps, 'db'>): Promise<OperatorClient[]> {
  return (await selectOperatorClients(deps.db, OPERATOR_CLIENT_FLAG)).map((c) => ({
    clientId: c.client_id,
    clientName: c.client_name,
    redirectUris: c.redirect_uris,
    applicationType: c.application_type,
    confidential: c.token_endpoint_auth_method !== 'none',
    createdAt: new Date(c.client_id_issued_at * 1000),
  }));
}

export async function deleteOperatorClient(deps: Pick<DomainDeps, 'db' | 'cache'>, clientId: string): Promise<void> {
  if (!clientId.startsWith(OPERATOR_CLIENT_PREFIX) || !(await deleteClientModels(deps.db, clientId))) throw notFound(PROBLEMS.clientNotFound, 'No such client.');
  await invalidateIntrospections(deps);
}
