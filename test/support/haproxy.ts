// HAProxy (Debian's package) on a free loopback port, round robin over server instances: the
// load balancer of a scaled-out deployment. Its /healthz checks drop an instance that stops.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Daemon, freePort, scratchDir, waitForPort } from './programs.js';

export interface HaProxy {
  /** http://localhost:<port> (the API host name the test servers answer to). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `backends`: base URLs (http://host:port) of the instances. */
export async function startHaProxy(backends: string[]): Promise<HaProxy> {
  const scratch = scratchDir('haproxy');
  const port = await freePort();
  const cfg = join(scratch.dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      '  option http-keep-alive',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend app',
      'backend app',
      '  balance roundrobin',
      '  option httpchk GET /healthz',
      '  http-check send hdr Host localhost',
      '  http-reuse safe',
      ...backends.map((b, i) => {
        const u = new URL(b);
        return `  server app${i + 1} ${u.hostname === 'localhost' ? '127.0.0.1' : u.hostname}:${u.port} check inter 1s fall 2 rise 1`;
      }),
      '',
    ].join('\n'),
  );
  const daemon = Daemon.start('haproxy', 'haproxy', ['-db', '-f', cfg], scratch.dir);
  try {
    await waitForPort(port);
  } catch (err) {
    await daemon.stop('SIGKILL');
    const log = daemon.log();
    scratch.remove();
    throw new Error(`haproxy did not start: ${(err as Error).message}\n${log}`, { cause: err });
  }
  return {
    url: `http://localhost:${port}`,
    port,
    async close() {
      await daemon.stop('SIGTERM');
      scratch.remove();
    },
  };
}
