// Recognising unique violations whatever the driver adapter puts in the error's metadata.
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}

/** True when the unique violation concerns the given column (snake_case or camelCase). */
export function violates(err: unknown, ...columns: string[]): boolean {
  if (!isUniqueViolation(err)) return false;
  const meta = JSON.stringify((err as { meta?: unknown }).meta ?? {}) + String((err as Error).message);
  return columns.some((c) => meta.includes(c));
}
