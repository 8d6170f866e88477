// A loopback TCP proxy the tests put between a server instance and its database or Redis, so
// they can make those unreachable (cut: connections reset, new ones refused) or silent
// (hang: connections stay open, nothing passes) or slow to answer (delayMs) without touching the
// shared services.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private hung = false;
  private blocked = false;
  /** How long what the target sends back is held before it reaches the client (ms). */
  delayMs = 0;

  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    readonly port: number,
  ) {}

  /** Proxies to a TCP address, or to a Unix socket when `targetHost` is its path. */
  static async start(targetHost: string, targetPort?: number): Promise<TcpProxy> {
    let self: TcpProxy | null = null;
    const server = createServer((client) => {
      if (self!.blocked) return void client.destroy();
      const upstream = targetPort === undefined ? connect(targetHost) : connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        self!.sockets.add(s);
        s.on('close', () => self!.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (d: Buffer) => {
        if (!self!.hung) upstream.write(d);
      });
      // What comes back is held for the current delay, in order (a later chunk never overtakes).
      let dueAt = 0;
      upstream.on('data', (d: Buffer) => {
        if (self!.hung) return;
        if (self!.delayMs === 0 && dueAt <= performance.now()) return void client.write(d);
        dueAt = Math.max(dueAt, performance.now() + self!.delayMs);
        setTimeout(() => client.write(d), dueAt - performance.now());
      });
      client.on('end', () => upstream.end());
      upstream.on('end', () => client.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new TcpProxy(server, (server.address() as AddressInfo).port);
    return self;
  }

  /** The same URL with host and port replaced by the proxy's (a socket `host` parameter dropped). */
  static rewrite(url: string, port: number): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    u.searchParams.delete('host');
    return u.toString();
  }

  /** A proxy in front of a PostgreSQL URL: TCP, or the embedded database's Unix socket. */
  static async forDatabase(url: string): Promise<TcpProxy> {
    const u = new URL(url);
    const socketDir = u.searchParams.get('host');
    const port = Number(u.port || 5432);
    return socketDir ? TcpProxy.start(`${socketDir}/.s.PGSQL.${port}`) : TcpProxy.start(u.hostname, port);
  }

  /** Nothing passes any more, in either direction, and no connection is closed. */
  hang(): void {
    this.hung = true;
  }

  /** An outage that ends: every connection is reset and new ones are dropped until unblock(). */
  block(): void {
    this.blocked = true;
    for (const s of this.sockets) s.destroy();
  }

  unblock(): void {
    this.blocked = false;
  }

  /** Every connection is reset and new ones are refused. */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
