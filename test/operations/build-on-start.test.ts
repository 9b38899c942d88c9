import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// `npm start` builds the compiled server when its sources changed (scripts/build-server.js --if-stale),
// then runs what `npm run start:prod` runs. Here on a small tree of its own, not the repository's
// dist/, which other tests' servers are running.
const { build } = require('../../scripts/build-server.js') as {
  build(options: { ifStale?: boolean; root?: string }): { built: boolean; files: number };
};

describe('the build behind npm start', () => {
  let root: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const run = (file: string) => {
    const compiled = path.join(root, 'dist', file);
    delete require.cache[compiled];
    return require(compiled) as { answer(): string };
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-on-start-'));
    write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', strict: true } }));
    write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json' }));
    write('package.json', '{}');
    write('core/greeting.ts', "export const greeting: string = 'hello';\n");
    write('server/main.ts', "import { greeting } from '../core/greeting';\nexport function answer(): string { return greeting; }\n");
    write('connectors/medusa/plugin/src/index.ts', 'export const plugin = 1;\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds a fresh tree, then skips while nothing changed', () => {
    expect(build({ ifStale: true, root })).toMatchObject({ built: true, files: 2 }); // the Medusa plugin is its own package
    expect(run('server/main.js').answer()).toBe('hello');
    expect(fs.existsSync(path.join(root, 'dist/connectors/medusa'))).toBe(false);
    expect(build({ ifStale: true, root })).toMatchObject({ built: false });
  });

  it('rebuilds when a source changed, and leaves nothing of a removed one', () => {
    write('core/old.ts', 'export const old = 1;\n');
    build({ ifStale: true, root });
    expect(fs.existsSync(path.join(root, 'dist/core/old.js'))).toBe(true);

    write('core/greeting.ts', "export const greeting: string = 'hello again';\n");
    fs.rmSync(path.join(root, 'core/old.ts'));
    expect(build({ ifStale: true, root })).toMatchObject({ built: true });
    expect(run('server/main.js').answer()).toBe('hello again');
    expect(fs.existsSync(path.join(root, 'dist/core/old.js'))).toBe(false);
  });

  it('rebuilds when the compiler settings changed, and always without --if-stale', () => {
    build({ ifStale: true, root });
    write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json', compilerOptions: {} }));
    expect(build({ ifStale: true, root })).toMatchObject({ built: true });
    expect(build({ root })).toMatchObject({ built: true });
  });
});
