import knex from 'knex';
import { statementOnce } from '../../core/db/prepared-statement';

// A hot statement compiled by knex once per process; each run binds its own values in its slots.
describe('statementOnce', () => {
  const db = knex({ client: 'pg' });
  afterAll(() => db.destroy());

  it('builds the statement once, and binds each run’s values where its slots are, keeping the constants', () => {
    let builds = 0;
    const statement = statementOnce(2, (builder, [keys, limit]) => {
      builds += 1;
      return builder.raw('SELECT * FROM jsonb_to_recordset(?::jsonb) AS k(a int) WHERE k.a > ? LIMIT ?', [keys!, 7, limit!]);
    });

    const first = statement(db, ['[{"a":1}]', 10]).toSQL();
    const second = statement(db, ['[{"a":2}]', 20]).toSQL();

    expect(builds).toBe(1);
    expect(first.sql).toBe('SELECT * FROM jsonb_to_recordset(?::jsonb) AS k(a int) WHERE k.a > ? LIMIT ?');
    expect(first.bindings).toEqual(['[{"a":1}]', 7, 10]);
    expect(second.bindings).toEqual(['[{"a":2}]', 7, 20]);
  });

  it('names the prepared statement after its text, the same name on every run', () => {
    const statement = statementOnce(1, (builder, [value]) => builder.raw('SELECT ?::int AS n', [value!]));
    const options = (raw: ReturnType<typeof statement>) => raw.toSQL().options as { name?: string };

    const [one, two] = [statement(db, [1]), statement(db, [2])];
    expect(options(one).name).toMatch(/^q_[0-9a-f]{24}$/);
    expect(options(two).name).toBe(options(one).name);
  });
});
