import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { Logger } from 'pino';
import type { MailSettings } from './mail-settings';

/** One recipient as nodemailer's address object: nodemailer reads no more recipients out of it, as it would out of a string. */
export interface Mailbox {
  name: string;
  address: string;
}

/** Where the worker hands messages: an SMTP server, or (no SMTP_URL) .eml files a developer can open. */
export interface MailTransport {
  /** Resolves once the message is handed over; rejects with nodemailer's error (its `responseCode` tells 4xx from 5xx). */
  send(message: Omit<SendMailOptions, 'to' | 'cc' | 'bcc'> & { to: Mailbox; fileName: string }): Promise<void>;
  close(): void;
  /** Whether the SMTP server answers now (connects, greets, authenticates); files: always. */
  verify(): Promise<boolean>;
  /** For the start-up log line. */
  describe: string;
}

/** SMTP through nodemailer (pooled connections, STARTTLS where offered; smtps:// is TLS from the start). */
function smtpTransport(settings: MailSettings & { smtpUrl: string }): MailTransport {
  const transport = nodemailer.createTransport({
    url: settings.smtpUrl,
    pool: true,
    maxConnections: 2,
    maxMessages: 1_000, // per connection before it is renewed (nodemailer's default, 100, reconnects often under load)
    connectionTimeout: settings.sendTimeoutMs,
    greetingTimeout: settings.sendTimeoutMs,
    socketTimeout: settings.sendTimeoutMs,
  });
  const { hostname, port } = new URL(settings.smtpUrl);
  return {
    async send({ fileName: _fileName, ...message }) {
      await transport.sendMail(message);
    },
    close: () => transport.close(),
    verify: () => transport.verify().then(() => true, () => false),
    describe: `smtp ${hostname}:${port || 'default port'}`,
  };
}

/** No SMTP server: each message is written whole (as it would be sent) to `folder` and logged, so a newcomer sees it. */
function fileTransport(folder: string, logger: Logger | undefined): MailTransport {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send({ fileName, ...message }) {
      const info = await composer.sendMail(message);
      await fs.mkdir(folder, { recursive: true });
      const file = path.join(folder, fileName);
      await fs.writeFile(file, info.message as Buffer);
      logger?.info({ to: message.to.address, subject: message.subject, file }, 'mail written to a file (SMTP_URL is not set)');
    },
    close: () => undefined,
    verify: async () => true,
    describe: `files in ${folder}`,
  };
}

export function createMailTransport(settings: MailSettings, dataDir: string, logger?: Logger): MailTransport {
  return settings.smtpUrl ? smtpTransport({ ...settings, smtpUrl: settings.smtpUrl }) : fileTransport(path.resolve(dataDir, 'mail'), logger);
}
