// A rendered answer read from the database at most once per `keepMs` per instance (on the
// injected clock), with concurrent requests sharing one read; a failed read is not kept. For the
// public lists of the zone host (/status/incidents, the Atom feed): a crawler costs one query
// per instance per few seconds.
import type { Rendered } from './views.js';

export function keptFor<T = Rendered>(keepMs: number, clock: () => Date, load: (now: Date) => Promise<T>): () => Promise<T> {
  let kept: { at: number; rendered: Promise<T> } | null = null;
  return () => {
    const now = clock();
    if (kept && now.getTime() - kept.at < keepMs) return kept.rendered;
    const rendered = load(now);
    kept = { at: now.getTime(), rendered };
    rendered.catch(() => {
      if (kept?.rendered === rendered) kept = null;
    });
    return rendered;
  };
}
