// The one bound on an operation that has none of its own (a provider's token request, a database
// or Redis round trip behind a card or a readiness check): it rejects with the caller's error
// after `ms`, and the timer never outlives the race.
export function withTimeout<T>(op: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([op, timeout]).finally(() => clearTimeout(timer));
}
