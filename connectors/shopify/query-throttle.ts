/** What Shopify reports after each Admin GraphQL query (`extensions.cost.throttleStatus`). */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export interface QueryCost {
  requestedQueryCost?: number;
  throttleStatus?: ThrottleStatus;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One shop's leaky bucket as Shopify last reported it: before a query, wait until the points it
 * cost last time have been restored, rather than send it to be refused as THROTTLED.
 */
export class QueryThrottle {
  private status: ThrottleStatus | null = null;
  private at = 0;
  private readonly lastCost = new Map<string, number>();

  constructor(private readonly wait: (ms: number) => Promise<unknown> = sleep) {}

  /** Points available now, counting what has been restored since the last report. */
  available(now = Date.now()): number {
    if (!this.status) return Infinity;
    const restored = ((now - this.at) / 1000) * this.status.restoreRate;
    return Math.min(this.status.maximumAvailable, this.status.currentlyAvailable + restored);
  }

  /** Waits until `query` (at its last requested cost, or `needed`) fits in the bucket. */
  async before(query: string, needed = this.lastCost.get(query) ?? 0): Promise<void> {
    const missing = needed - this.available();
    if (missing > 0 && this.status && this.status.restoreRate > 0) await this.wait(Math.ceil((missing / this.status.restoreRate) * 1000));
  }

  /** Records the cost a response reports. */
  after(query: string, cost: QueryCost | undefined): void {
    if (cost?.requestedQueryCost !== undefined) this.lastCost.set(query, cost.requestedQueryCost);
    if (cost?.throttleStatus) {
      this.status = cost.throttleStatus;
      this.at = Date.now();
    }
  }
}
