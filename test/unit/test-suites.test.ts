import fs from 'node:fs';
import path from 'node:path';
import { SUITE_COUNT, partition, testFiles } from '../suites/suites';

describe('the suites npm test runs the test files in', () => {
  it('puts the longest file first, each into the suite with the least time so far', () => {
    const seconds = { 'a.test.ts': 5, 'b.test.ts': 4, 'c.test.ts': 3, 'd.test.ts': 2, 'e.test.ts': 1 };
    expect(partition(Object.keys(seconds), 2, seconds)).toEqual([
      ['a.test.ts', 'd.test.ts', 'e.test.ts'],
      ['b.test.ts', 'c.test.ts'],
    ]);
  });

  it('counts a file with no recorded time as 2 seconds', () => {
    expect(partition(['new.test.ts', 'old.test.ts'], 2, { 'old.test.ts': 1.5 })).toEqual([['new.test.ts'], ['old.test.ts']]);
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
