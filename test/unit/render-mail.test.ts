import { type RenderInput, renderMail } from '../../core/mail/render-mail';

// Issue 39, findings 3 and 4: a template's text and every value are text in the HTML part; links
// come only from the placeholders whose values are addresses the program built.

const UNSUBSCRIBE = 'https://referrals.example/mail/unsubscribe/abc.def';
const SHARE = 'https://shop.example/?ref=ANN12';

function render(body: string, values: Record<string, string> = {}, subject = 'Hello {{first_name}}') {
  const input: RenderInput = {
    template: 'advocate_welcome',
    text: { subject, body },
    values: { brand_name: 'Northwind', store_url: 'https://shop.example', first_name: 'Ann', share_link: SHARE, ...values },
    brandName: 'Northwind',
    language: 'en',
    unsubscribeUrl: UNSUBSCRIBE,
  };
  return renderMail(input);
}

/** The elements the HTML part opens, and where its links go: what a mail client would render. */
const elementsOf = (html: string) => new Set([...html.matchAll(/<([a-z][a-z0-9-]*)/gi)].map(([, name]) => name!.toLowerCase()));
const hrefsOf = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map(([, href]) => href!.replace(/&amp;/g, '&'));
const LAYOUT = ['html', 'head', 'meta', 'title', 'body', 'table', 'tr', 'td', 'p', 'a', 'br'];

describe('renderMail', () => {
  it('does not link a URL in a value: an advocate whose first name is https://evil.example/login (issue 39, 3)', () => {
    const mail = render('Hi {{first_name}},\n\n{{share_link}}', { first_name: 'https://evil.example/login' });
    expect(hrefsOf(mail.html)).toEqual([SHARE, SHARE, UNSUBSCRIBE]); // the button and the address under it
    expect(mail.html).toContain('Hi https://evil.example/login,');
    expect(mail.text).toContain('Hi https://evil.example/login,');
  });

  it('escapes the template\'s own text: <script>, <img>, a form and <a href> a merchant saved are text, not markup (issue 39, 4)', () => {
    const body = [
      'Hi {{first_name}} <script>alert(1)</script>',
      '<img src="https://tracker.example/p.gif" onerror="alert(2)">',
      '<form action="https://phish.example/login"><input name="password"></form>',
      '<a href="https://phish.example/win">Claim your prize</a>',
    ].join('\n\n');
    const mail = render(body);
    expect([...elementsOf(mail.html)].filter((name) => !LAYOUT.includes(name))).toEqual([]);
    expect(hrefsOf(mail.html)).toEqual([UNSUBSCRIBE]);
    expect(mail.html).toContain('Hi Ann &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).toContain('&lt;a href=&quot;https://phish.example/win&quot;&gt;Claim your prize&lt;/a&gt;');
    expect(mail.text).toContain('<a href="https://phish.example/win">Claim your prize</a>'); // the plain part is text as written
  });

  it('shows an address the merchant typed into the template as text: links come only from placeholders', () => {
    const mail = render('Visit https://typed.example/sale today.');
    expect(hrefsOf(mail.html)).toEqual([UNSUBSCRIBE]);
    expect(mail.html).toContain('Visit https://typed.example/sale today.');
  });

  it('links the program\'s own addresses: {{share_link}} and {{store_url}} in a sentence, and a paragraph of the share link alone as a button', () => {
    const mail = render('Shop at {{store_url}} or share {{share_link}}.\n\n{{share_link}}', { share_link: 'https://shop.example/?ref=A&b=1' });
    expect(hrefsOf(mail.html)).toEqual(['https://shop.example', 'https://shop.example/?ref=A&b=1', 'https://shop.example/?ref=A&b=1', 'https://shop.example/?ref=A&b=1', UNSUBSCRIBE]);
    expect(mail.html).toContain('>Share your link</a>');
    expect(mail.html).toContain('share <a href="https://shop.example/?ref=A&amp;b=1"');
  });

  it('links a link placeholder only when its value is a web address', () => {
    const mail = render('Shop at {{store_url}}.', { store_url: 'javascript:alert(1)' });
    expect(hrefsOf(mail.html)).toEqual([UNSUBSCRIBE]);
    expect(mail.html).toContain('Shop at javascript:alert(1).');
  });

  it('keeps the subject one line: a value with CR/LF cannot add a header', () => {
    const mail = render('Hi', { first_name: 'Ann\r\nBcc: victim@example.com' });
    expect(mail.subject).toBe('Hello Ann Bcc: victim@example.com');
  });

  it('leaves out a paragraph whose values are all empty (no share link while the store is unknown)', () => {
    const mail = render('Hi {{first_name}},\n\n{{share_link}}\n\n{{store_url}}', { share_link: '', store_url: '' });
    expect(hrefsOf(mail.html)).toEqual([UNSUBSCRIBE]);
    expect(mail.text).toBe(`Hi Ann,\n\n--\nYou get this email from the Northwind referral program.\nUnsubscribe: ${UNSUBSCRIBE}\n`);
  });
});
