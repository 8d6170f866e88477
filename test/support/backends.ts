// Some tests mean something only on the real backends: two instances sharing PostgreSQL and
// Redis, a Redis to cut behind a proxy. On the embedded defaults they are reported as skipped,
// with the reason, instead of leaving the run without a trace.
type BackendVariable = 'DATABASE_URL' | 'REDIS_URL';

/**
 * node:test options (also taken by fixtures) that skip unless every variable is set:
 * `test(name, needs(['REDIS_URL'], 'why'), fn)`.
 */
export function needs(variables: BackendVariable[], why: string): { skip?: string } {
  return variables.every((v) => process.env[v]) ? {} : { skip: `needs ${variables.join(' and ')}: ${why}` };
}
