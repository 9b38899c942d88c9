import { z } from 'zod';
import type { ProductLine } from '../../core/conversions/conversion-input';
import { amount, lines, text } from './fields';

const quantity = () => z.number().int({ error: 'must be an integer' }).nonnegative({ error: 'must not be negative' });

/** A product line of `products`: name/title/product_name, quantity/qty, price/total/line_total. */
const productLineRequest = z.looseObject({
  name: text().optional(),
  title: text().optional(),
  product_name: text().optional(),
  quantity: quantity().optional(),
  qty: quantity().optional(),
  price: amount().optional(),
  total: amount().optional(),
  line_total: amount().optional(),
  sku: text().optional(),
});

const PRODUCT_KNOWN = ['name', 'title', 'product_name', 'quantity', 'qty', 'price', 'total', 'line_total', 'sku'];

export const productLines = () =>
  lines(productLineRequest).transform((requested): ProductLine[] =>
    requested.map((line) => ({
      name: line.name ?? line.title ?? line.product_name ?? 'Unknown Product',
      quantity: line.quantity ?? line.qty ?? 1,
      price: line.price ?? line.total ?? line.line_total ?? 0,
      sku: line.sku,
      attributes: extraFields(line, PRODUCT_KNOWN),
    })),
  );

/** An entry of the alternate forms' `items`: name required, unit_price or line_total. */
const itemRequest = z.looseObject({
  name: text().trim().min(1, { error: 'must not be empty' }),
  quantity: quantity().optional(),
  unit_price: amount().optional(),
  line_total: amount().optional(),
  sku: text().optional(),
  category_path: z.array(text()).max(50).optional(),
  image_url: text().optional(),
});

const ITEM_KNOWN = ['name', 'quantity', 'unit_price', 'line_total', 'sku'];

export const itemLines = () =>
  lines(itemRequest).transform((requested): ProductLine[] =>
    requested.map((item) => {
      const quantity = item.quantity ?? 1;
      // A line total alone gives the unit price; the exact total is kept as the line's revenue.
      const price = item.unit_price ?? (item.line_total !== undefined && quantity > 0 ? Math.round((item.line_total / quantity) * 100) / 100 : 0);
      return {
        name: item.name,
        quantity,
        price,
        line_total: item.line_total ?? undefined,
        sku: item.sku,
        attributes: extraFields(item, ITEM_KNOWN),
      };
    }),
  );

function extraFields(line: Record<string, unknown>, known: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(line).filter(([key, value]) => !known.includes(key) && value !== undefined));
}
