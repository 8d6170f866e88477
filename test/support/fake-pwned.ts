// A local stand-in for the Pwned Passwords range API (API.md section 9): GET <prefix> answers
// the suffixes of the breached passwords a test registered under that prefix, among padding
// lines (count 0) as the real service's `Add-Padding: true` answers. Every request is recorded
// (path and headers), so tests can assert what left the process. `mode` switches it to hanging
// (the request is read, never answered) or to a 503.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useFixture } from './fixture.js';

export interface RangeRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
}

export const sha1Hex = (password: string) => createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();

export class FakePwned {
  readonly requests: RangeRequest[] = [];
  mode: 'answer' | 'hang' | 503 = 'answer';
  /** SHA-1 (upper-case hex) → breach count; 0 makes it a padding entry. */
  private readonly entries = new Map<string, number>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakePwned> {
    let self: FakePwned | null = null;
    const server = createServer((req, res) => {
      self!.requests.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers });
      if (self!.mode === 'hang') return;
      if (self!.mode === 503) return void res.writeHead(503).end('unavailable');
      const prefix = (req.url ?? '').split('/').pop()!.toUpperCase();
      res.writeHead(200, { 'content-type': 'text/plain' }).end(self!.range(prefix));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FakePwned(server);
    return self;
  }

  /** The range API address, as PWNED_PASSWORDS_URL takes it (the prefix is appended). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/range/`;
  }

  /** Registers a breached password (count > 0) or a padding-only entry (count 0). */
  add(password: string, count = 42): void {
    this.entries.set(sha1Hex(password), count);
  }

  private range(prefix: string): string {
    const lines: string[] = [];
    for (const [hash, count] of this.entries) if (hash.startsWith(prefix)) lines.push(`${hash.slice(5)}:${count}`);
    // Padding as the real service adds it: random suffixes with a count of 0.
    for (let i = 0; i < 20; i++) lines.push(`${createHash('sha1').update(`${prefix}${i}`).digest('hex').toUpperCase().slice(5)}:0`);
    return lines.sort().join('\r\n');
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A fake range server for the tests of the file. */
export function useFakePwned(): FakePwned {
  const get = useFixture(() => FakePwned.start(), (f) => f.close());
  return new Proxy({} as FakePwned, {
    get: (_t, prop) => {
      const f = get();
      const v = Reflect.get(f, prop, f) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(f) : v;
    },
    set: (_t, prop, value) => Reflect.set(get(), prop, value),
  });
}
