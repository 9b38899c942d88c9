import fs from 'node:fs';
import path from 'node:path';

const CONNECTOR = path.join(__dirname, '../../connectors/shopify');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * Every Admin GraphQL document in the connector's code (each starts with `#graphql`): exported
 * constants are taken from the module, as sent; an inline literal is read from the source.
 */
export function connectorDocuments(): Array<{ where: string; text: string }> {
  const documents: Array<{ where: string; text: string }> = [];
  for (const file of sourceFiles(CONNECTOR)) {
    const source = fs.readFileSync(file, 'utf8');
    const occurrences = source.split('#graphql').length - 1;
    if (occurrences === 0) continue;
    const where = path.relative(CONNECTOR, file);
    const exported = Object.entries(require(file) as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].startsWith('#graphql'),
    );
    for (const [name, text] of exported) documents.push({ where: `${where} ${name}`, text });
    const inline = [...source.matchAll(/'(#graphql(?:[^'\\]|\\.)*)'/g)].map((match) => JSON.parse(`"${match[1]!.replace(/"/g, '\\"')}"`) as string);
    for (const text of inline) documents.push({ where: `${where} (inline)`, text });
    if (exported.length + inline.length !== occurrences) {
      throw new Error(`${where} has ${occurrences} #graphql documents but ${exported.length + inline.length} could be read: export them as constants`);
    }
  }
  return documents;
}

