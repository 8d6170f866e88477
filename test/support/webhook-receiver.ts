// A webhook receiver on loopback for the delivery tests: records every POST (headers and raw
// body) and answers what the test says (a status, a delay, or never).
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = { status: number; delayMs?: number; body?: string } | 'hang';

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** What the next requests get; the default is 200 at once. */
  answer: Answer | ((r: Received) => Answer) = { status: 200 };
  private readonly hanging = new Set<() => void>();

  private constructor(
    private readonly server: HttpServer,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let self: WebhookReceiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        self!.received.push(r);
        const answer = typeof self!.answer === 'function' ? self!.answer(r) : self!.answer;
        if (answer === 'hang') {
          const end = () => res.destroy();
          self!.hanging.add(end);
          res.on('close', () => self!.hanging.delete(end));
          return;
        }
        setTimeout(() => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok'), answer.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** Received requests of one event type (the body's `type`). */
  ofType(type: string): Received[] {
    return this.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === type);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`receiver: not within ${timeoutMs} ms; got ${this.received.length} requests`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    for (const end of this.hanging) end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
