/** A page of a report's rows: `has_more` instead of a total, so no page counts the whole table. */
export interface Page<T> {
  rows: T[];
  page: number;
  per_page: number;
  has_more: boolean;
}

/** Reads one row more than a page holds to learn whether another page follows. */
export function pageOf<T>(rows: T[], page: number, perPage: number): Page<T> {
  return { rows: rows.slice(0, perPage), page, per_page: perPage, has_more: rows.length > perPage };
}

/** A LIKE pattern matching `text` anywhere, its wildcards taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
