import express from 'express';
import pg from 'pg';

/**
 * The comparator of the independent shape: a plain Express + pg service doing far less than ours
 * (no auth, no validation beyond JSON, no ledger, no log): per order, a SELECT of the referral
 * code and an INSERT of the order. Run as its own process: EXPRESS_DATABASE_URL, PORT.
 */
export const EXPRESS_TABLES = `
  CREATE TABLE IF NOT EXISTS express_codes (code text PRIMARY KEY, advocate_id integer NOT NULL);
  CREATE TABLE IF NOT EXISTS express_orders (
    order_id text PRIMARY KEY, advocate_id integer, email text NOT NULL, order_value numeric(14,2) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now());
`;

async function main(): Promise<void> {
  // The pool of our service's default size (core/db/create-database.ts), so neither side gets more connections.
  const pool = new pg.Pool({ connectionString: process.env.EXPRESS_DATABASE_URL, max: 10 });
  await pool.query(EXPRESS_TABLES);
  const app = express();
  app.use(express.json());
  app.post('/orders', async (req, res) => {
    try {
      const { rows } = await pool.query('SELECT advocate_id FROM express_codes WHERE code = $1', [req.body.referral_code]);
      const inserted = await pool.query(
        'INSERT INTO express_orders (order_id, advocate_id, email, order_value) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [req.body.order_id, rows[0]?.advocate_id ?? null, req.body.customer_email, req.body.order_value],
      );
      res.status(inserted.rowCount === 1 ? 201 : 200).json({ order_id: req.body.order_id });
    } catch (error) {
      res.status(500).json({ error: (error as Error).message });
    }
  });
  app.get('/readyz', (_req, res) => res.json({ ok: true }));
  app.listen(Number(process.env.PORT), '127.0.0.1');
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`express comparator failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
