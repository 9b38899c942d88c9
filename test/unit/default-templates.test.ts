import { LANGUAGES } from '../../core/brands/brand';
import { defaultTemplate } from '../../core/mail/default-templates';
import { MAIL_TEMPLATES, PLACEHOLDERS } from '../../core/mail/mail-templates';
import { checkTemplateText } from '../../core/mail/render-mail';

describe('the default words of the program emails', () => {
  it.each(LANGUAGES.flatMap((language) => MAIL_TEMPLATES.map((template) => [language, template] as const)))(
    '%s %s: a subject and body using only the template\'s placeholders, with the code and link where it sends them',
    (language, template) => {
      const text = defaultTemplate(language, template);
      expect(() => checkTemplateText(template, text)).not.toThrow();
      if (PLACEHOLDERS[template].includes('first_name')) expect(text.body).toContain('{{first_name}}');
      if (template === 'advocate_welcome' || template === 'advocate_link_again') expect([text.body.includes('{{share_link}}'), text.body.includes('{{referral_code}}')]).toEqual([true, true]);
    },
  );
});
