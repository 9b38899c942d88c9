/** An active advocate's codes attribute orders; a deactivated one's resolve as unknown (their history stays). */
export const ADVOCATE_STATUSES = ['active', 'deactivated'] as const;
export type AdvocateStatus = (typeof ADVOCATE_STATUSES)[number];

/** SQL: the advocate named by these columns (of a claim, a visit…) is active; for a statement that does not join advocates. */
export function advocateIsActive(brandColumn: string, advocateColumn: string): string {
  return `EXISTS (SELECT 1 FROM advocates active_a WHERE active_a.brand_id = ${brandColumn} AND active_a.advocate_id = ${advocateColumn} AND active_a.status = 'active')`;
}
