import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../server/http-error';
import { openApiDocument } from '../../server/openapi';
import { ROOT, headings, proseLines } from './markdown';

/**
 * docs/api/ is the REST reference: each endpoint of the OpenAPI document (server/openapi.ts, the
 * one GET /api/v1/openapi.json serves) has a heading there, `### POST /api/v1/track/conversion`,
 * and each such heading names an endpoint the document has. The errors table lists ERROR_CODES.
 */
const API_DOCS = path.join(ROOT, 'docs/api');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Documented under /api/v1 but not an operation of the document: the document itself (server/app.ts). */
const NOT_IN_DOCUMENT = new Set(['GET /api/v1/openapi.json']);

function apiDocs(): { file: string; text: string }[] {
  return fs
    .readdirSync(API_DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ file: `docs/api/${name}`, text: fs.readFileSync(path.join(API_DOCS, name), 'utf8') }));
}

/** `METHOD /api/v1/…` named in headings of docs/api/ ("### GET /healthz, GET /readyz" names two). */
function documentedEndpoints(docs = apiDocs()): Map<string, string> {
  const found = new Map<string, string>();
  for (const { file, text } of docs) {
    for (const heading of headings(text)) {
      for (const match of heading.replace(/`/g, '').matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/api\/v1\/[^\s,()]+)/g)) found.set(`${match[1]} ${match[2]}`, file);
    }
  }
  return found;
}

function documentEndpoints(): string[] {
  const paths = openApiDocument().paths as Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
  return Object.entries(paths).flatMap(([route, operations]) => METHODS.filter((method) => operations[method]).map((method) => `${method.toUpperCase()} ${route}`));
}

describe('docs/api/ and the OpenAPI document', () => {
  it('has a heading for every operation of the document', () => {
    const documented = documentedEndpoints();
    const operations = documentEndpoints();
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((operation) => !documented.has(operation))).toEqual([]);
  });

  it('documents no endpoint the document lacks', () => {
    const operations = new Set(documentEndpoints());
    const extra = [...documentedEndpoints()].filter(([endpoint]) => !operations.has(endpoint) && !NOT_IN_DOCUMENT.has(endpoint));
    expect(extra.map(([endpoint, file]) => `${file}: ${endpoint}`)).toEqual([]);
  });

  it('tells a heading of a route that does not exist', () => {
    const docs = [{ file: 'x.md', text: '# X\n### POST /api/v1/track/teleport (all plans)\n```\n### GET /api/v1/in-a-code-block\n```\n### GET /healthz, GET /readyz\n' }];
    expect([...documentedEndpoints(docs).keys()]).toEqual(['POST /api/v1/track/teleport']);
  });

  it('lists every error code in the errors table of rest.md, with its status', () => {
    const rows = proseLines(fs.readFileSync(path.join(API_DOCS, 'rest.md'), 'utf8'))
      .map(({ text }) => /^\| (\d{3}) \| `([a-z_]+)` \|/.exec(text))
      .filter((row): row is RegExpExecArray => row !== null)
      .map((row) => [row[2]!, Number(row[1])] as const);
    const expected = Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status] as const);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
    expect(rows).toHaveLength(expected.length);
  });
});
