// The device page's paths of API.md section 12: the same operations as GraphQL.
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';

export const deviceRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/device/lookup',
    document: graphql('query ($userCode: String!) { deviceRequest(userCode: $userCode) { clientId scopes requestedAt ip } }'),
    body: { user_code: 'userCode' },
    status: 200,
    respond: (d) => ({ client_id: d.deviceRequest.clientId, scopes: d.deviceRequest.scopes, requested_at: d.deviceRequest.requestedAt, ip: d.deviceRequest.ip }),
  }),
  route({
    method: 'POST',
    url: '/api/device/approve',
    document: graphql('mutation ($userCode: String!) { approveDevice(userCode: $userCode) }'),
    body: { user_code: 'userCode' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/device/deny',
    document: graphql('mutation ($userCode: String!) { denyDevice(userCode: $userCode) }'),
    body: { user_code: 'userCode' },
    status: 204,
  }),
];
