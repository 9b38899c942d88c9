import type { Knex } from 'knex';
import { type MailDeps, deliverDueMail } from '../../server/mail/deliver-mail';
import type { MailSettings } from '../../server/mail/mail-settings';
import { createMailTransport } from '../../server/mail/mail-transport';
import { TEST_SECRET } from '../helpers/test-app';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver';

/** The mail a test sends through the real outbox worker to a real SMTP server, read back as it arrived. */
export interface MailCapture {
  /** Every due message of the brand sent, until none is due. */
  sendDue(brandId: string): Promise<void>;
  /** What `email` received, oldest first. */
  receivedBy(email: string): SmtpReceiver['received'];
}

/**
 * Starts an SMTP receiver before the file's tests and the mail deps that deliver to it (links under
 * https://referrals.example), stops both after them. `db` is read when the tests run.
 */
export function captureMail(db: () => Knex): MailCapture {
  let smtp: SmtpReceiver;
  let deps: MailDeps;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    const settings: MailSettings = { smtpUrl: smtp.url, from: 'program@shop.example', workerIntervalMs: 50, sendTimeoutMs: 20_000, retryScale: 0.001 };
    deps = { db: db(), transport: createMailTransport(settings, '/nonexistent'), settings, publicUrl: 'https://referrals.example', secret: TEST_SECRET };
  });
  afterAll(async () => {
    deps?.transport.close();
    await smtp?.stop();
  });
  return {
    async sendDue(brandId) {
      while ((await deliverDueMail(deps, brandId)) > 0);
    },
    receivedBy: (email) => smtp.received.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address?.toLowerCase() === email.toLowerCase()),
  };
}
