/**
 * The reward ledger's entry kinds: a conversion's credit and its reversals (refunds), an advocate
 * claim's redemption and what its refund gives back. The database CHECKs the same list.
 */
export const LEDGER_ENTRY_KINDS = ['credit', 'reversal', 'redemption', 'redemption_return'] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];
