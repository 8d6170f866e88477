// HAProxy (Debian's package) on a free loopback port, round robin over server instances: the
// load balancer of a scaled-out deployment. Its /healthz checks drop an instance that stops.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProgram, type Program } from './programs.js';

export interface HaProxy extends Program {
  /** http://localhost:<port> (the API host name the test servers answer to). */
  url: string;
}

/** `backends`: base URLs (http://host:port) of the instances. */
export async function startHaProxy(backends: string[]): Promise<HaProxy> {
  const haproxy = await startProgram('haproxy', (dir, port) => {
    const cfg = join(dir, 'haproxy.cfg');
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
    return ['-db', '-f', cfg];
  });
  return { ...haproxy, url: `http://localhost:${haproxy.port}` };
}
