import type { IssueState } from '../../core/rewards/advocate-issues';
import type { AdvocateFigures } from './storefront-customers';

/**
 * The advocate's page as Liquid, rendered by Shopify inside the store's theme (the app proxy
 * answers `application/liquid`). Only the page's own Liquid runs: every value of ours (a name, a
 * code, a link, a message) is HTML-escaped and its braces written as entities, so nothing a
 * shopper typed can become a Liquid tag (`{{ customer.email }}` in a first name stays text).
 */
export function inert(value: string): string {
  return value.replace(/[&<>"'{}]/g, (char) => `&#${char.charCodeAt(0)};`);
}

const STYLE = `<style>
.referrals-page { max-width: 36rem; margin: 2rem auto; padding: 0 1rem; }
.referrals-page dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
.referrals-page dt { font-weight: 600; }
.referrals-page .referrals-error { color: #b00020; }
</style>`;

function page(body: string): string {
  return `${STYLE}\n<section class="referrals-page" id="referrals-page">\n<h1>Refer a friend</h1>\n${body}\n</section>\n`;
}

/** A visitor who is not signed in: asked to sign in, and nothing else. */
export function signInPage(proxyPath: string): string {
  const login = `/account/login?return_url=${encodeURIComponent(proxyPath)}`;
  return page(`<p id="referrals-sign-in">Sign in to join our referral program and see your referral link.</p>
<p><a href="${inert(login)}">Sign in</a></p>`);
}

/**
 * A signed-in customer who has not joined: one click, with their email and first name filled in
 * by the theme's Liquid (the app may not read customers itself), their consent asked for, and the
 * token that ties the form to this customer (a form posted from another site has none).
 */
export function joinPage(proxyPath: string, formToken: string, error?: string): string {
  const problem = error ? `<p class="referrals-error" id="referrals-error">${inert(error)}</p>\n` : '';
  return page(`${problem}<p>Join our referral program: share your link, and earn a reward when a friend orders.</p>
<form method="post" action="${inert(`${proxyPath}/join`)}" id="referrals-join">
  <input type="hidden" name="form_token" value="${inert(formToken)}">
  <input type="hidden" name="email" value="{{ customer.email | escape }}">
  <p><label>First name <input type="text" name="first_name" value="{{ customer.first_name | escape }}" required maxlength="100"></label></p>
  <p>Your link and reward emails go to {{ customer.email | escape }}.</p>
  <p><label><input type="checkbox" name="consent" value="yes" required> I agree to join the referral program and to get its emails.</label></p>
  <p><button type="submit">Join</button></p>
</form>`);
}

export interface AdvocatePageData {
  first_name: string;
  referral_code: string;
  share_link: string | null;
  currency: string;
  figures: AdvocateFigures;
}

/** An advocate's own page: their code, link, friends referred and rewards by status. */
export function advocatePage(data: AdvocatePageData): string {
  const link = data.share_link
    ? `<p>Your link: <a href="${inert(data.share_link)}" id="referrals-share-link">${inert(data.share_link)}</a></p>`
    : '<p>Share your code: friends enter it at checkout.</p>';
  const money = (amount: string) => `${inert(amount)} ${inert(data.currency)}`;
  return page(`<p>Welcome, ${inert(data.first_name)}.</p>
<p>Your code: <strong id="referrals-code">${inert(data.referral_code)}</strong></p>
${link}
<dl id="referrals-figures">
  <dt>Friends referred</dt><dd id="referrals-friends">${data.figures.friends_referred}</dd>
  <dt>Rewards held</dt><dd id="referrals-held">${money(data.figures.held)}</dd>
  <dt>Rewards approved</dt><dd id="referrals-approved">${money(data.figures.approved)}</dd>
  <dt>Rewards paid</dt><dd id="referrals-paid">${money(data.figures.paid)}</dd>
</dl>${Number(data.figures.owed) > 0 ? `\n<p id="referrals-owed">You owe ${money(data.figures.owed)} from a refunded order; it will be taken from your next rewards.</p>` : ''}${rewardCodes(data.figures.reward_codes, money)}`);
}

/** What each state of a reward code means to the advocate. */
const CODE_STATE: Record<IssueState, string> = {
  on_its_way: 'on its way: we will email it to you shortly',
  ready: 'ready to use once at checkout',
  used: 'used',
  withdrawn: 'withdrawn after a refund of the order that earned it',
  expired: 'expired; its value comes back to you as a new code',
};

/** What each state of a store credit means to the advocate (a credit is spent like any other of the account: never "used" here). */
const CREDIT_STATE: Record<IssueState, string> = {
  on_its_way: 'on its way to your store credit',
  ready: 'added to your store credit, used at checkout when you are signed in',
  used: 'used',
  // Store credit is not taken back here (docs/merchants/shopify.md "Store credit"); the words are for completeness.
  withdrawn: 'withdrawn after a refund of the order that earned it',
  expired: 'expired',
};

/** One reward: its code and what it takes off, or the store credit it added. */
function rewardItem(issue: AdvocateFigures['reward_codes'][number], money: (amount: string) => string): string {
  if (issue.code === null) return `  <li><strong>Store credit</strong>: ${money(issue.amount)}, ${CREDIT_STATE[issue.state]}</li>`;
  return `  <li><strong>${inert(issue.code)}</strong>: ${money(issue.amount)} off, ${CODE_STATE[issue.state]}</li>`;
}

/** The advocate's reward codes and store credit, newest first; nothing while they have none. */
function rewardCodes(codes: AdvocateFigures['reward_codes'], money: (amount: string) => string): string {
  if (codes.length === 0) return '';
  const credits = codes.filter((issue) => issue.code === null).length;
  const title = credits === 0 ? 'Your reward codes' : credits === codes.length ? 'Your store credit' : 'Your reward codes and store credit';
  return `\n<h2>${title}</h2>\n<ul id="referrals-reward-codes">\n${codes.map((issue) => rewardItem(issue, money)).join('\n')}\n</ul>`;
}

/**
 * An address that was already an advocate when this customer joined with it: the address came
 * from the browser, so nothing of its advocate is shown (their code, name or figures); what is
 * theirs goes to the address by email. The same words whether that advocate is active or not.
 */
export function checkEmailPage(email: string): string {
  return page(`<p id="referrals-check-email">This email address has already joined the referral program.</p>
<p>If its referral account is active, we have emailed its code and link to ${inert(email)} (at most once a day).</p>`);
}

/** A customer whose advocate was deactivated by the store. */
export function inactivePage(): string {
  return page('<p id="referrals-inactive">Your referral account is not active. Contact the store for help.</p>');
}
