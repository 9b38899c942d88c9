import type { Knex } from 'knex';

/**
 * Deletes a brand and everything it owns: its rows in every table that has a brand_id (children
 * before the tables they reference), then the brand, so tables later features add are covered
 * too. Returns how many tables were cleared.
 */
export async function deleteBrand(trx: Knex.Transaction, brandId: string): Promise<number> {
  const columns = await trx.raw(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND c.column_name = 'brand_id' AND t.table_type = 'BASE TABLE'
        AND c.table_name <> 'brands'`,
  );
  const tables: string[] = columns.rows.map((row: { table_name: string }) => row.table_name);
  const references = await trx.raw(
    `SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint c
       JOIN pg_class child ON child.oid = c.conrelid JOIN pg_class parent ON parent.oid = c.confrelid
      WHERE c.contype = 'f' AND child.relname <> parent.relname`,
  );
  for (const table of childrenFirst(tables, references.rows)) {
    await trx(table).where({ brand_id: brandId }).delete();
  }
  await trx('brands').where({ brand_id: brandId }).delete();
  return tables.length;
}

/** Orders tables so that a table comes before every table it references. */
export function childrenFirst(tables: string[], references: Array<{ child: string; parent: string }>): string[] {
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    // Everything that references this table goes first.
    for (const reference of references) if (reference.parent === table && tables.includes(reference.child)) visit(reference.child);
    ordered.push(table);
  };
  for (const table of [...tables].sort()) visit(table);
  return ordered;
}
