// The device page's paths of API.md section 12: the same operations as GraphQL.
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { DeviceRequest } from '../schemas.js';

export const deviceRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/device/lookup',
    summary: 'What the device (the tunnel CLI) asked for, by its user code.',
    errors: { 404: 'Unknown or expired code.', 429: 'Too many wrong codes from this network.' },
    response: DeviceRequest,
    document: graphql('query ($userCode: String!) { deviceRequest(userCode: $userCode) { clientId scopes requestedAt ip } }'),
    body: { user_code: 'userCode' },
    status: 200,
    respond: (d) => ({ client_id: d.deviceRequest.clientId, scopes: d.deviceRequest.scopes, requested_at: d.deviceRequest.requestedAt, ip: d.deviceRequest.ip }),
  }),
  route({
    method: 'POST',
    url: '/api/device/approve',
    summary: 'Approve the device: its next poll gets a service token.',
    errors: {
      403: 'The address is not verified, or recent authentication is needed (REAUTH_REQUIRED).',
      404: 'Unknown or expired code.',
      409: 'The account holds 50 live service tokens already.',
      429: 'Too many wrong codes from this network.',
    },
    document: graphql('mutation ($userCode: String!) { approveDevice(userCode: $userCode) }'),
    body: { user_code: 'userCode' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/device/deny',
    summary: "Deny the device: its next poll answers access_denied.",
    errors: { 404: 'Unknown or expired code.', 429: 'Too many wrong codes from this network.' },
    document: graphql('mutation ($userCode: String!) { denyDevice(userCode: $userCode) }'),
    body: { user_code: 'userCode' },
    status: 204,
  }),
];
