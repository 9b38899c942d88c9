import fs from 'node:fs';
import path from 'node:path';

/**
 * The dashboard's templates and its own assets stay in the source tree (server/dashboard): under
 * tsx and jest this file sits beside them; compiled to dist/server/dashboard it looks back there.
 */
export function dashboardDir(name: 'views' | 'assets'): string {
  const beside = path.join(__dirname, name);
  if (fs.existsSync(beside)) return beside;
  return path.resolve(__dirname, '..', '..', '..', 'server', 'dashboard', name);
}
