// Recognising unique violations whatever the driver adapter puts in the error's metadata.
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}

/**
 * What the violated constraint names: its columns or its index, read from the structured
 * metadata only. The error's message is no source: it quotes the whole call, arguments and all,
 * so a `customDomain: null` in it would make any violation look like the custom domain's.
 */
function constraintOf(err: unknown): string {
  const meta = (err as { meta?: Record<string, unknown> }).meta ?? {};
  const parts: unknown[] = [meta.target];
  const cause = (meta.driverAdapterError as { cause?: { constraint?: { fields?: unknown; index?: unknown }; originalMessage?: unknown } } | undefined)?.cause;
  if (cause?.constraint) parts.push(cause.constraint.fields, cause.constraint.index);
  // PostgreSQL's own sentence names the constraint and nothing else of the call.
  else if (typeof cause?.originalMessage === 'string') parts.push(/constraint "([^"]+)"/.exec(cause.originalMessage)?.[1]);
  return JSON.stringify(parts.filter((p) => p !== undefined && p !== null));
}

/** True when the unique violation concerns the given column (snake_case or camelCase). */
export function violates(err: unknown, ...columns: string[]): boolean {
  if (!isUniqueViolation(err)) return false;
  const constraint = constraintOf(err);
  return columns.some((c) => constraint.includes(c));
}
