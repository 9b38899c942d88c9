import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../helpers/free-port';

/** A real SMTP server on 127.0.0.1 (the `smtp-server` package) that parses what it accepts with `mailparser`. */
export interface SmtpReceiver {
  port: number;
  /** smtp://127.0.0.1:<port> */
  url: string;
  received: ParsedMail[];
  /** Each received message's RCPT TO addresses: who the server was asked to deliver it to (a Bcc included). */
  envelopeTo: Map<ParsedMail, string[]>;
  /** Refuses RCPT TO for these addresses with the given reply (550: a bounce; 450: try later). */
  refuse: Map<string, number>;
  /** How long it takes to answer the data of a message to these addresses (a slow server). */
  slowFor: Map<string, number>;
  /** Stops listening and drops every connection (an outage); `start` listens on the same port again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Resolves once `count` messages have arrived in all (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const port = await freePort();
  let server: SMTPServer | null = null;
  const receiver: SmtpReceiver = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received: [],
    envelopeTo: new Map(),
    refuse: new Map(),
    slowFor: new Map(),
    async start() {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        closeTimeout: 100, // an outage drops the client's pooled connections at once
        onRcptTo(address, _session, callback) {
          const code = receiver.refuse.get(address.address.toLowerCase());
          if (code === undefined) return callback();
          const error = Object.assign(new Error(code >= 500 ? 'mailbox unavailable' : 'try again later'), { responseCode: code });
          callback(error);
        },
        onData(stream, session, callback) {
          const delayMs = Math.max(0, ...session.envelope.rcptTo.map((to) => receiver.slowFor.get(to.address.toLowerCase()) ?? 0));
          simpleParser(stream).then(
            (mail) => {
              receiver.received.push(mail);
              receiver.envelopeTo.set(mail, session.envelope.rcptTo.map((to) => to.address));
              setTimeout(callback, delayMs);
            },
            (error: Error) => callback(error),
          );
        },
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
    },
    async stop() {
      const closing = server;
      server = null;
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${receiver.received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return receiver.received;
    },
  };
  await receiver.start();
  return receiver;
}
