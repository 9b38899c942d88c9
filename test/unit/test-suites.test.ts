import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SUITE_COUNT, modulesLoading, partition, testFiles } from '../suites/suites';

const noGroup = () => false;

describe('the suites npm test runs the test files in', () => {
  it('puts the longest file first, each into the suite with the least time so far', () => {
    const seconds = { 'a.test.ts': 5, 'b.test.ts': 4, 'c.test.ts': 3, 'd.test.ts': 2, 'e.test.ts': 1 };
    expect(partition(Object.keys(seconds), 2, seconds, noGroup)).toEqual([
      ['a.test.ts', 'd.test.ts', 'e.test.ts'],
      ['b.test.ts', 'c.test.ts'],
    ]);
  });

  it('counts a file with no recorded time as 2 seconds', () => {
    expect(partition(['new.test.ts', 'old.test.ts'], 2, { 'old.test.ts': 1.5 }, noGroup)).toEqual([['new.test.ts'], ['old.test.ts']]);
  });

  it('puts the files that load a heavy package into one suite, weighed as one piece', () => {
    const seconds = { 'a.test.ts': 5, 'm1.test.ts': 2, 'm2.test.ts': 2, 'b.test.ts': 3 };
    const loadsMedusa = (file: string) => file.startsWith('m');
    expect(partition(Object.keys(seconds), 2, seconds, loadsMedusa)).toEqual([
      ['a.test.ts'],
      ['m1.test.ts', 'm2.test.ts', 'b.test.ts'],
    ]);
  });

  it('sees a package loaded through the project\'s own modules, and not one only imported as a type', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loads-package-'));
    try {
      const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
      write('types-only.test.ts', "import type { Logger } from '@medusajs/framework/types';\nimport { x } from './plain';\n");
      write('plain.ts', 'export const x = 1;\n');
      write('through-helper.test.ts', "import {\n  y,\n} from './helper';\n");
      write('helper.ts', "import { Modules } from '@medusajs/framework/utils';\nexport const y = Modules;\n");
      write('required.test.ts', "const framework = require('@medusajs/framework');\n");
      const roots = ['types-only.test.ts', 'through-helper.test.ts', 'required.test.ts'].map((name) => path.join(dir, name));
      expect([...modulesLoading(['@medusajs/framework'], roots)].map((file) => path.basename(file)).sort()).toEqual(['helper.ts', 'required.test.ts', 'through-helper.test.ts']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs every file that loads Medusa\'s framework in one suite: the plugin\'s tests and those that build Medusa-shaped orders', () => {
    const files = testFiles();
    const suites = partition(files, SUITE_COUNT);
    // The files that load it (not the whole medusa/ folder: a test of the plugin's pure parts may not).
    const loading = modulesLoading(['@medusajs/framework'], files.map((file) => path.join(__dirname, '..', file)));
    const withMedusa = suites.filter((suite) => suite.some((file) => loading.has(path.join(__dirname, '..', file))));
    expect(withMedusa).toHaveLength(1);
    expect(withMedusa[0]).toEqual(expect.arrayContaining(['medusa/plugin-subscribers.test.ts', 'webhooks/outbound-webhooks.test.ts']));
  });

  it('finds no test file in the Medusa store\'s own folder or in any node_modules', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'test-files-'));
    try {
      for (const file of ['a/one.test.ts', 'medusa-app/node_modules/x/two.test.ts', 'b/node_modules/three.test.ts', 'b/four.test.ts', 'b/helper.ts']) {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), '');
      }
      expect(testFiles(root)).toEqual(['a/one.test.ts', 'b/four.test.ts']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('runs every test file of the repository in exactly one suite, and not the Medusa store test, which has its own run', () => {
    const files = testFiles();
    expect(files).toContain('unit/test-suites.test.ts');
    expect(files).toContain('claims/track-claim.test.ts');
    expect(files).not.toContain('medusa/in-medusa-app.test.ts');
    const suites = partition(files, SUITE_COUNT);
    expect(suites.flat().sort()).toEqual(files);
    expect(new Set(suites.flat()).size).toBe(files.length);
  });

  it('has one suite file per suite, each running its own number', () => {
    const dir = path.join(__dirname, '../suites');
    const suiteFiles = fs.readdirSync(dir).filter((file) => file.endsWith('.suite.ts')).sort();
    expect(suiteFiles).toEqual(['suite-1.suite.ts', 'suite-2.suite.ts', 'suite-3.suite.ts', 'suite-4.suite.ts', 'suite-5.suite.ts', 'suite-6.suite.ts', 'suite-7.suite.ts', 'suite-8.suite.ts', 'suite-9.suite.ts']);
    expect(SUITE_COUNT).toBe(9);
    for (const [index, file] of suiteFiles.entries()) expect(fs.readFileSync(path.join(dir, file), 'utf8')).toContain(`runSuite(${index + 1});`);
  });

  it('gives every jest worker as many suites: the suites take about the same time, so a worker with one fewer would wait for the others at the end', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { maxWorkers } = require('../../jest.config.js') as { maxWorkers: number };
    expect(maxWorkers).toBe(3);
    expect(SUITE_COUNT % maxWorkers).toBe(0);
  });
});
