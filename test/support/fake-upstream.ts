// A fake broker/api health endpoint whose behaviour a test switches at will: answer 200 or 503,
// hang after reading the request, accept the TCP connection and never read it (half-open), or
// refuse connections (the listener closes; the same port is bound again on the next mode).
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';

export type UpstreamMode = 200 | 503 | 'hang' | 'half-open' | 'refuse';

export class FakeUpstream {
  mode: UpstreamMode = 200;
  /** Requests (or, half-open, connections) seen since the last reset. */
  hits = 0;
  private readonly sockets = new Set<Socket>();
  private readonly http: HttpServer;
  private net: Server | null = null;

  private constructor(public port: number) {
    this.http = createHttpServer((req, res) => {
      this.hits++;
      if (this.mode === 'hang') return; // request read, never answered
      const code = this.mode === 503 ? 503 : 200;
      res.writeHead(code, { 'content-type': 'text/plain' }).end(code === 200 ? 'ok' : 'unavailable');
    });
  }

  static async start(): Promise<FakeUpstream> {
    const f = new FakeUpstream(0);
    await f.listen();
    return f;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/healthz`;
  }

  async set(mode: UpstreamMode): Promise<void> {
    if (mode === 'refuse' && this.net) await this.stopListening();
    if (mode !== 'refuse' && !this.net) await this.listen();
    this.mode = mode;
  }

  private listen(): Promise<void> {
    const net = createNetServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {});
      if (this.mode === 'half-open') {
        this.hits++;
        socket.pause(); // accepted, never read, never answered
        return;
      }
      this.http.emit('connection', socket);
    });
    this.net = net;
    return new Promise((resolve, reject) => {
      net.once('error', reject);
      net.listen(this.port, '127.0.0.1', () => {
        const addr = net.address();
        if (typeof addr === 'object' && addr) this.port = addr.port;
        resolve();
      });
    });
  }

  private stopListening(): Promise<void> {
    const net = this.net;
    this.net = null;
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => (net ? net.close(() => resolve()) : resolve()));
  }

  async close(): Promise<void> {
    await this.stopListening();
  }
}
