/**
 * The program's tokens as a merchant reads them (a status, a kind, a fraud reason): the pages say
 * "partly refunded", never `partial_refund`. CSV exports keep the tokens, for spreadsheets and scripts.
 */
const WORDS: Record<string, string> = {
  // Orders and claims.
  completed: 'paid',
  partial_refund: 'partly refunded',
  refunded: 'refunded',
  converted: 'ordered',
  // Rewards.
  in_review: 'in review',
  pending: 'on hold',
  approved: 'approved',
  voided: 'voided',
  // The activity feed's kinds.
  visit: 'Link visit',
  claim: 'Discount claimed',
  conversion: 'Referred order',
  refund: 'Refund',
  // Fraud review reasons.
  self_referral: 'Self-referral',
  velocity: 'Too many orders',
  disposable_email: 'Disposable email address',
};

/** A token in words; one we have no words for loses its underscores. */
export function inWords(token: string): string {
  return WORDS[token] ?? token.replace(/_/g, ' ');
}
