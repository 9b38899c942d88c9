import { type ModuleImport, importsOf, importsUnder, sourceFiles } from './module-imports';

const described = (imports: ModuleImport[]) => imports.map(({ file, specifier }) => `${file} imports ${specifier}`);
const under = (target: string | null, folder: string) => target !== null && (target === folder || target.startsWith(`${folder}/`));

describe('the boundaries between core/, server/ and connectors/', () => {
  it('sees every form of import a TypeScript file can use', () => {
    const source = [
      "import type { A } from './a';",
      "import B from '../b';",
      "export * from '../../c';",
      "export { D } from 'd';",
      "const e = require('./e');",
      "async function f() { return import('./f'); }",
      "import g = require('./g');",
      "let h: typeof import('./h').H;",
    ].join('\n');
    expect(importsOf(source).sort()).toEqual(['../../c', '../b', './a', './e', './f', './g', './h', 'd']);
  });

  it('connectors import only core/, their own folder and server/http, never other server internals or another connector', () => {
    const connectors = [...new Set(sourceFiles('connectors').map((file) => file.split('/')[1]!))];
    expect(connectors).toEqual(expect.arrayContaining(['medusa', 'shopify']));
    const imports = importsUnder('connectors');
    const forbidden = imports.filter(({ file, target }) => {
      if (target === null) return false;
      const own = `connectors/${file.split('/')[1]}`;
      return !(under(target, own) || under(target, 'core') || target === 'server/http' || target === 'server/http/index');
    });
    expect(described(forbidden)).toEqual([]);
    // The scan sees the allowed door too: an empty scan must not pass.
    expect(imports.filter(({ target }) => target === 'server/http').length).toBeGreaterThan(0);
  });

  it('core/ imports nothing from server/ or connectors/, and no HTTP or platform library', () => {
    const imports = importsUnder('core');
    expect(imports.length).toBeGreaterThan(0);
    const forbidden = imports.filter(
      ({ specifier, target }) =>
        under(target, 'server') || under(target, 'connectors') || /^(koa|@koa\/|@shopify\/|@medusajs\/|supertest)/.test(specifier),
    );
    expect(described(forbidden)).toEqual([]);
  });

  it('server/ knows the connectors only through the list in server/connectors.ts', () => {
    const forbidden = importsUnder('server').filter(({ file, target }) => under(target, 'connectors') && file !== 'server/connectors.ts');
    expect(described(forbidden)).toEqual([]);
  });
});
