// What the surfaces show of a passkey (never its key or credential id).
export const passkeySelect = {
  id: true,
  name: true,
  createdAt: true,
  lastUsedAt: true,
  backupEligible: true,
  backedUp: true,
  transports: true,
} as const;

export interface PasskeyRow {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backupEligible: boolean;
  backedUp: boolean;
  transports: string[];
}
