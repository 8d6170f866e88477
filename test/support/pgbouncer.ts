// PgBouncer (Debian's package) in transaction pooling mode in front of a PostgreSQL, on a free
// loopback port: what the server meets behind a managed pooler. Version 1.18 (bookworm) has no
// protocol-level prepared statements, which is the point: the server must not need them.
import { chmodSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { startProgram, type Program } from './programs.js';

export interface PgBouncer extends Program {
  /** The database's URL through the pooler (DATABASE_URL). */
  url: string;
}

/** Starts PgBouncer for the database of `upstream` (a postgresql:// URL, trust or password auth). */
export async function startPgBouncer(upstream: string, opts: { poolSize?: number } = {}): Promise<PgBouncer> {
  const u = new URL(upstream);
  const user = decodeURIComponent(u.username || 'postgres');
  const password = decodeURIComponent(u.password);
  const dbName = u.pathname.slice(1);
  const pgbouncer = await startProgram(
    'pgbouncer',
    (dir, port) => {
      // PgBouncer refuses to run as root: it drops to the postgres user, who must read its files.
      chmodSync(dir, 0o777);
      const ini = join(dir, 'pgbouncer.ini');
      const users = join(dir, 'userlist.txt');
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
          `logfile = ${join(dir, 'pgbouncer.file.log')}`,
          '',
        ].join('\n'),
        { mode: 0o644 },
      );
      return userInfo().uid === 0 ? ['-u', 'postgres', ini] : [ini];
    },
    'SIGINT',
  );
  const url = new URL(upstream);
  url.hostname = '127.0.0.1';
  url.port = String(pgbouncer.port);
  return { ...pgbouncer, url: url.toString() };
}
