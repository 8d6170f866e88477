/// <reference lib="dom" />
// WebAuthn's options and responses travel through the schema's JSONObject scalar: the server
// builds and checks them (@simplewebauthn/server), the browser library reads and makes them.
// These two casts are the one place the console crosses that untyped boundary.
export const fromJsonObject = <T>(value: Record<string, unknown>): T => value as unknown as T;
export const toJsonObject = (value: object): Record<string, unknown> => value as Record<string, unknown>;
