// Embedded PostgreSQL for the zero-service default: PGlite on disk in DATA_DIR, exposed on a
// loopback port through pglite-socket so that the very same pg driver adapter talks to it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  close(): Promise<void>;
}

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir);
  // PGlite is one connection; the server multiplexes clients onto it, one query at a time.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgresql://postgres@${address}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
