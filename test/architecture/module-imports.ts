import fs from 'node:fs';
import path from 'node:path';
import { parseSync } from '@swc/core';

/** The repository root: the tests scan its source, wherever it was cloned. */
export const REPO_ROOT = path.resolve(__dirname, '../..');

/** Every module a TypeScript source names: import/export … from, require(), import(), import x = require(), import('…') types. */
export function importsOf(source: string): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, any>;
    if ('source' in record && record.source?.type === 'StringLiteral') found.push(record.source.value);
    if (record.type === 'CallExpression' && (record.callee?.type === 'Import' || record.callee?.value === 'require')) {
      const first = record.arguments?.[0]?.expression;
      if (first?.type === 'StringLiteral') found.push(first.value);
    }
    if (record.type === 'TsExternalModuleReference' || record.type === 'TsImportType') {
      const specifier = record.expression ?? record.argument;
      if (specifier?.type === 'StringLiteral') found.push(specifier.value);
    }
    Object.values(record).forEach(visit);
  };
  visit(parseSync(source, { syntax: 'typescript', tsx: false }).body);
  return found;
}

/** The .ts files under a folder of the repository (not node_modules, not build output), relative to the root. */
export function sourceFiles(folder: string): string[] {
  const entries = fs.readdirSync(path.join(REPO_ROOT, folder), { recursive: true, encoding: 'utf8' });
  return entries
    .filter((entry) => entry.endsWith('.ts') && !entry.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.')))
    .map((entry) => path.posix.join(folder, entry.split(path.sep).join('/')))
    .sort();
}

export interface ModuleImport {
  /** The importing file, relative to the root. */
  file: string;
  specifier: string;
  /** A relative import resolved against the root (`server/http`), else null (a package). */
  target: string | null;
}

/** The imports of every .ts file under a folder, relative ones resolved to repository paths. */
export function importsUnder(folder: string): ModuleImport[] {
  return sourceFiles(folder).flatMap((file) =>
    importsOf(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')).map((specifier) => ({
      file,
      specifier,
      target: specifier.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)) : null,
    })),
  );
}
