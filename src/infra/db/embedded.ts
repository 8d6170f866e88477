// Embedded PostgreSQL for the zero-service default: PGlite on disk in DATA_DIR, served through
// pglite-socket so that the very same pg driver adapter talks to it. It listens on a Unix socket
// in a fresh directory only this user can enter (mode 0700), never on a TCP port: PGlite has
// no authentication, and a loopback port would let every local user read and change the data.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  /** The directory holding the socket (mode 0700). */
  socketDir: string;
  close(): Promise<void>;
}

/** The port number only names the socket file (`.s.PGSQL.5432`), as libpq and pg expect. */
const SOCKET_PORT = 5432;

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const socketDir = mkdtempSync(join(tmpdir(), 'pglite-'));
  const db = await PGlite.create(dir);
  // PGlite is one connection; the server multiplexes clients onto it, one query at a time.
  const server = new PGLiteSocketServer({ db, path: join(socketDir, `.s.PGSQL.${SOCKET_PORT}`), maxConnections: 16 });
  try {
    await server.start();
  } catch (err) {
    await db.close();
    rmSync(socketDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgresql://postgres@localhost:${SOCKET_PORT}/postgres?host=${encodeURIComponent(socketDir)}`,
    socketDir,
    async close() {
      await server.stop();
      await db.close();
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
