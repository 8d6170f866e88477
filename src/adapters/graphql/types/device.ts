// The console's side of the device authorization grant (API.md section 12): look up the code a
// device shows, then approve or deny it. Only a session reaches these (none of them declares
// tokenScopes); approving needs a verified address and a recent sign-in (REAUTH_REQUIRED).
import { approveDevice, denyDevice, lookupDeviceRequest, type DeviceRequestView } from '../../../domain/device-grant/device-grant.js';
import { builder } from '../builder.js';

const DeviceRequestRef = builder.objectRef<DeviceRequestView>('DeviceRequest').implement({
  description: 'A device (the tunnel CLI) asking to sign in to this account.',
  fields: (t) => ({
    clientId: t.exposeString('clientId'),
    scopes: t.exposeStringList('scopes', { description: 'What the token it gets may reach.' }),
    requestedAt: t.expose('requestedAt', { type: 'DateTime' }),
    ip: t.exposeString('ip', { description: 'The network the device asked from, masked: 203.0.113.x' }),
    userAgent: t.exposeString('userAgent', { description: 'The device’s user agent; the token is named after it.' }),
  }),
});

builder.queryField('deviceRequest', (t) =>
  t.field({
    type: DeviceRequestRef,
    description: 'The pending device sign-in with this code. Wrong codes count against a per-network limit (10 per 15 minutes).',
    authScopes: { signedIn: true },
    args: { userCode: t.arg.string({ required: true, description: 'The code the device shows (XXXX-XXXX; case and the dash are ignored).' }) },
    resolve: (_root, args, ctx) => lookupDeviceRequest(ctx.deps, ctx.viewer!, args.userCode, ctx.client),
  }),
);

builder.mutationFields((t) => ({
  approveDevice: t.boolean({
    description: 'Approves the device: its next poll gets a service token with the scopes it asked for. Needs a verified address and a recent sign-in.',
    authScopes: { signedIn: true },
    args: { userCode: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await approveDevice(ctx.deps, ctx.viewer!, args.userCode, ctx.client);
      return true;
    },
  }),
  denyDevice: t.boolean({
    description: 'Denies the device: its next poll answers access_denied.',
    authScopes: { signedIn: true },
    args: { userCode: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await denyDevice(ctx.deps, ctx.viewer!, args.userCode, ctx.client);
      return true;
    },
  }),
}));
