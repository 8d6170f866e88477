// Where emails go: a real SMTP server (SMTP_URL), or .eml files in DATA_DIR/outbox for the
// zero-service default. Logs name the file and the link's path, never the credential. Beside each
// .eml the outbox folder gets a .txt of the same name: the subject, the recipient and the text
// body as written, so a link can be opened as copied (the raw .eml is quoted-printable: `=3D`
// for `=` and soft line breaks inside long links).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface OutgoingMail {
  id: string;
  kind: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

function message(mail: OutgoingMail) {
  return {
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: `<${mail.id}@${mail.from.replace(/.*@|>.*/g, '') || 'localhost'}>`,
    headers: { ...mail.headers, 'X-Email-Kind': mail.kind },
  };
}

export function smtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport(url, {});
  return {
    async send(mail) {
      await transporter.sendMail(message(mail));
    },
    close() {
      transporter.close();
    },
  };
}

/** Redacts `token=` (and the device page's `user_code=`) values: a log line may show where a link goes, never what opens it. */
export function redactLinks(text: string): string {
  return text.replace(/([?&](?:token|user_code)=)[^\s&"'<>]+/g, '$1[redacted]');
}

/** The outbox's .txt copy: headers a person reads, a blank line, the text body unencoded. */
export function readableCopy(mail: Pick<OutgoingMail, 'subject' | 'to' | 'text'>): string {
  return `Subject: ${mail.subject}\nTo: ${mail.to}\n\n${mail.text.endsWith('\n') ? mail.text : `${mail.text}\n`}`;
}

export function fileTransport(dataDir: string, logger: Logger): MailTransport {
  const dir = join(dataDir, 'outbox');
  mkdirSync(dir, { recursive: true });
  const writer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await writer.sendMail(message(mail));
      const base = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.kind}-${mail.id}`);
      writeFileSync(`${base}.eml`, info.message as Buffer, { mode: 0o600 });
      writeFileSync(`${base}.txt`, readableCopy(mail), { mode: 0o600 });
      const links = (mail.text.match(/https?:\/\/\S+/g) ?? []).map(redactLinks);
      logger.info({ kind: mail.kind, file: `${base}.txt`, links }, 'email written to the outbox folder (open the .txt file for the link)');
    },
    close() {
      writer.close();
    },
  };
}
