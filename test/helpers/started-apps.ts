import type { Knex } from 'knex';
import type { App } from '../../server/app';
import { closeRateLimits } from '../../server/middleware/rate-limit';

const started: Array<{ app: App; db: Knex }> = [];

/** An app a test started on `db`: closed by closeStartedApps, at the latest when its file is done. */
export function trackStartedApp(app: App, db: Knex): void {
  started.push({ app, db });
}

/**
 * The apps started so far (or only those on `db`) stop syncing rate-limit counts, as a server does
 * at shutdown: no timer of theirs outlives the test file (test/helpers/after-each-file.ts,
 * test/suites/suites.ts). A database is closed only after its apps: an app closed later sends its
 * last counts to a pool that is gone, and knex waited its 60 s acquire timeout for that (a stall
 * seen in one run out of two of the embedded suite, in the file that drops its scratch database).
 */
export async function closeStartedApps(db?: Knex): Promise<void> {
  const closing = started.filter((entry) => !db || entry.db === db);
  for (const entry of closing) started.splice(started.indexOf(entry), 1);
  await Promise.all(closing.map((entry) => closeRateLimits(entry.app)));
}
