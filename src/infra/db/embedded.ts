// Embedded PostgreSQL for the zero-service default: PGlite on disk in DATA_DIR, served through
// pglite-socket so that the very same pg driver adapter talks to it. It listens on a Unix socket
// in a fresh directory only this user can enter (mode 0700), never on a TCP port: PGlite has
// no authentication, and a loopback port would let every local user read and change the data.
//
// Memory: PGlite's PostgreSQL runs in WebAssembly inside this process, so its settings are this
// process's footprint. shared_buffers is 16 MB instead of PostgreSQL's 128 MB (one connection and
// a development data set; the rest is the kernel's page cache of the data files, as with any
// PostgreSQL), and a new data directory is created (initdb) in a worker thread that exits
// afterwards: done in this thread, initdb's WebAssembly memory stayed resident for the life of
// the process, more than the server itself holds.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
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

/** PGlite's own start parameters plus a smaller buffer pool; postgresql.conf stays as initdb wrote it. */
export const EMBEDDED_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** Creates the data directory in a worker thread, whose memory goes with it when it exits. */
function initializeDataDir(dir: string): Promise<void> {
  const module = import.meta.resolve('@electric-sql/pglite');
  const code = `import(${JSON.stringify(module)}).then(async ({ PGlite }) => {
    const db = await PGlite.create(${JSON.stringify(dir)}, { startParams: ${JSON.stringify(EMBEDDED_START_PARAMS)} });
    await db.close();
  });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`creating the embedded database failed (worker exit ${code})`))));
  });
}

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'PG_VERSION'))) await initializeDataDir(dir);
  const socketDir = mkdtempSync(join(tmpdir(), 'pglite-'));
  const db = await PGlite.create(dir, { startParams: [...EMBEDDED_START_PARAMS] });
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
