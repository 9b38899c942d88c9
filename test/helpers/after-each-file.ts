import { closeStartedApps } from './started-apps';
import { closeTestDatabase } from './test-database';

// Jest runs this before each test file (or suite of files): when the file is done, its apps stop
// their timers and its database is closed, whether or not the file closed them itself.
afterAll(async () => {
  await closeStartedApps();
  await closeTestDatabase();
});
