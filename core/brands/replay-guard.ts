import type { Executor } from '../db/transaction';

/** A signed request's timestamp may be this far from the server clock, either way (spec: 5 minutes). */
export const REPLAY_WINDOW_SECONDS = 300;

/** True when a unix-seconds timestamp is within the replay window of `nowMs`. */
export function timestampIsFresh(timestampSeconds: number, nowMs: number): boolean {
  return Math.abs(nowMs / 1000 - timestampSeconds) <= REPLAY_WINDOW_SECONDS;
}

/** Signatures are hex: the same bytes in upper case must count as the same signature. */
function normalize(signatureHex: string): string {
  return signatureHex.trim().toLowerCase();
}

/**
 * Spends a signature: true the first time a brand presents it, false when it was already seen
 * (a replay). The row lives until the request's timestamp leaves the window, after which the
 * timestamp check refuses the request anyway. The unique key decides between concurrent requests
 * on any number of server instances.
 */
export async function spendSignature(
  db: Executor,
  brandId: string,
  signatureHex: string,
  timestampSeconds: number,
): Promise<boolean> {
  await db('signature_replays').where({ brand_id: brandId }).where('expires_at', '<', db.fn.now()).delete();
  const inserted = await db('signature_replays')
    .insert({
      brand_id: brandId,
      signature: normalize(signatureHex),
      expires_at: new Date((timestampSeconds + REPLAY_WINDOW_SECONDS) * 1000),
    })
    .onConflict(['brand_id', 'signature'])
    .ignore()
    .returning('signature');
  return inserted.length > 0;
}

/** Gives a signature back when its request failed and changed nothing, so it may be retried as sent. */
export async function releaseSignature(db: Executor, brandId: string, signatureHex: string): Promise<void> {
  await db('signature_replays').where({ brand_id: brandId, signature: normalize(signatureHex) }).delete();
}
