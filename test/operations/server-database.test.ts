import { realPostgres } from '../helpers/real-postgres';
import { removeScratch, serverDatabase } from './processes';

afterAll(removeScratch);

describe("a spawned server's database", () => {
  it('is its own, never the shared test database (a server’s workers sweep every brand), migrated, and dropped by removeScratch', async () => {
    const database = await serverDatabase();
    const shared = process.env.TEST_DATABASE_URL;
    if (shared) {
      expect(database.env.DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(database.env.DATABASE_URL).not.toBe(shared);
    } else {
      expect(database.env.DATABASE_URL).toBe('');
    }
    const db = await database.open();
    try {
      expect(await db('brands').count({ brands: '*' })).toEqual([{ brands: '0' }]);
    } finally {
      await db.destroy();
    }
    if (!shared) return;
    const name = new URL(database.env.DATABASE_URL!).pathname.slice(1);
    await removeScratch();
    const postgres = await realPostgres();
    try {
      expect(await postgres.db('pg_database').where({ datname: name })).toEqual([]);
    } finally {
      await postgres.close();
    }
  });
});
