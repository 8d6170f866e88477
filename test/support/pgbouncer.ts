// PgBouncer (Debian's package) in transaction pooling mode in front of a PostgreSQL, on a free
// loopback port: what the server meets behind a managed pooler. Version 1.18 (bookworm) has no
// protocol-level prepared statements, which is the point: the server must not need them.
import { chmodSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { Daemon, freePort, scratchDir, waitForPort } from './programs.js';

export interface PgBouncer {
  /** The database's URL through the pooler (DATABASE_URL). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts PgBouncer for the database of `upstream` (a postgresql:// URL, trust or password auth). */
export async function startPgBouncer(upstream: string, opts: { poolSize?: number } = {}): Promise<PgBouncer> {
  const u = new URL(upstream);
  const user = decodeURIComponent(u.username || 'postgres');
  const password = decodeURIComponent(u.password);
  const dbName = u.pathname.slice(1);
  const scratch = scratchDir('pgbouncer');
  // PgBouncer refuses to run as root: it drops to the postgres user, who must read its files.
  chmodSync(scratch.dir, 0o777);
  const port = await freePort();
  const ini = join(scratch.dir, 'pgbouncer.ini');
  const users = join(scratch.dir, 'userlist.txt');
  writeFileSync(users, `"${user}" "${password}"\n`, { mode: 0o644 });
  writeFileSync(
    ini,
    [
      '[databases]',
      `${dbName} = host=${u.hostname} port=${u.port || 5432} dbname=${dbName}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      `auth_type = ${password ? 'plain' : 'trust'}`,
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 10}`,
      'max_client_conn = 500',
      'server_reset_query =',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${join(scratch.dir, 'pgbouncer.file.log')}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const args = userInfo().uid === 0 ? ['-u', 'postgres', ini] : [ini];
  const daemon = Daemon.start('pgbouncer', 'pgbouncer', args, scratch.dir);
  try {
    await waitForPort(port);
  } catch (err) {
    await daemon.stop('SIGKILL');
    const log = daemon.log();
    scratch.remove();
    throw new Error(`pgbouncer did not start: ${(err as Error).message}\n${log}`, { cause: err });
  }
  const url = new URL(upstream);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    async close() {
      await daemon.stop('SIGINT');
      scratch.remove();
    },
  };
}
