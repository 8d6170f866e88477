// A real SMTP server in the test process: the service delivers through nodemailer over TCP and
// tests read what arrived (headers, links, tokens).
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  to: string[];
  raw: string;
  kind: string;
  subject: string;
  /** The first `token=` value of any link in the mail. */
  token: string | null;
  links: string[];
}

function decodeQuotedPrintable(s: string): string {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export class TestSmtp {
  readonly mails: ReceivedMail[] = [];
  private waiters: (() => void)[] = [];
  /** While true, every message is refused with a temporary failure (an SMTP outage). */
  failing = false;
  private constructor(private readonly server: SMTPServer, readonly port: number) {}

  /** Listens on 127.0.0.1:port (0: any free port). */
  static async start(port = 0): Promise<TestSmtp> {
    let self: TestSmtp | null = null;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (self?.failing) {
            const err = new Error('mailbox temporarily unavailable') as Error & { responseCode: number };
            err.responseCode = 451;
            return callback(err);
          }
          self?.record(Buffer.concat(chunks).toString('utf8'), session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    self = new TestSmtp(server, (server.server.address() as AddressInfo).port);
    return self;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  private record(raw: string, to: string[]): void {
    const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(raw)?.[1]?.trim() ?? '';
    const decoded = decodeQuotedPrintable(raw);
    const links = [...new Set(decoded.match(/https?:\/\/[^\s"<>]+/g) ?? [])];
    const token = links.map((l) => /[?&]token=([^&\s]+)/.exec(l)?.[1]).find(Boolean) ?? null;
    this.mails.push({ to: to.map((t) => t.toLowerCase()), raw, kind: header('X-Email-Kind'), subject: header('Subject'), token, links });
    for (const w of this.waiters.splice(0)) w();
  }

  /** Mails to an address (case-insensitive), optionally of one kind. */
  to(address: string, kind?: string): ReceivedMail[] {
    const a = address.toLowerCase();
    return this.mails.filter((m) => m.to.includes(a) && (!kind || m.kind === kind));
  }

  /** Waits until at least `count` mails to the address (of the kind) have arrived. */
  async waitFor(address: string, kind: string, count = 1, timeoutMs = 10_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.to(address, kind);
      if (found.length >= count) return found[count - 1]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${kind} email #${count} to ${address} within ${timeoutMs} ms (have ${found.length})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
