import type { Knex } from 'knex';
import { runStatements } from './run-statements';

/** The templates before a migration that adds one: the program's, and the merchant account emails (the outbox only). */
interface TemplatesBefore {
  program: string;
  account: string;
}

/**
 * A migration adding a program email (docs/merchants/program-emails.md): its brand switch (on by
 * default), and its name in the outbox's and the brand's own words' CHECK lists; down removes its
 * rows and all three. `before` lists the templates as SQL literals, as they were at that migration.
 */
export function addProgramTemplate(template: string, switchColumn: string, before: TemplatesBefore) {
  const checks = (program: string) => `
ALTER TABLE mail_messages DROP CONSTRAINT IF EXISTS mail_messages_template_check;
ALTER TABLE mail_messages ADD CONSTRAINT mail_messages_template_check CHECK (template IN (${program}, ${before.account}));
ALTER TABLE mail_templates DROP CONSTRAINT IF EXISTS mail_templates_template_check;
ALTER TABLE mail_templates ADD CONSTRAINT mail_templates_template_check CHECK (template IN (${program}));
`;
  const upSql = `ALTER TABLE brands ADD COLUMN ${switchColumn} boolean NOT NULL DEFAULT true;${checks(`${before.program}, '${template}'`)}`;
  const downSql = `
DELETE FROM mail_messages WHERE template = '${template}';
DELETE FROM mail_templates WHERE template = '${template}';${checks(before.program)}ALTER TABLE brands DROP COLUMN IF EXISTS ${switchColumn};
`;
  return {
    up: (knex: Knex) => runStatements(knex, upSql),
    down: (knex: Knex) => runStatements(knex, downSql),
  };
}
