const countFormat = new Intl.NumberFormat('en-US');

/** A count with its noun, as a person writes it: "1 payout", "1,280 payouts". */
export function counted(count: number, one: string, many: string): string {
  return `${countFormat.format(count)} ${count === 1 ? one : many}`;
}
