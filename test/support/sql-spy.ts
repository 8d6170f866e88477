// Records the statements a server runs straight on node-postgres (`deps.sql`: the card lookup,
// the session check, the lists), so a test can count a path's round trips.
import type { Server } from './server.js';

export interface SqlSpy {
  /** The statements' text, in order, since the spy started (or since `reset`). */
  readonly statements: string[];
  reset(): void;
  /** Puts the server's own `sql` back. */
  restore(): void;
}

export function spyOnSql(server: Pick<Server, 'deps'>): SqlSpy {
  const real = server.deps.sql;
  const statements: string[] = [];
  server.deps.sql = ((text: string, values: readonly unknown[]) => {
    statements.push(text);
    return real(text, values);
  }) as typeof real;
  return {
    statements,
    reset: () => {
      statements.length = 0;
    },
    restore: () => {
      server.deps.sql = real;
    },
  };
}
