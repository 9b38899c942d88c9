/** Flags of jest's that take the next argument as their value (`-t name`, `-c file`, …). */
const TAKES_VALUE = /^(-t|-c|-w|--testNamePattern|--config|--maxWorkers|--outputFile|--reporters|--shard|--seed|--selectProjects|--testTimeout)$/;

/**
 * Files named on the command line (`npx jest test/claims/track-claim.test.ts`, `npm test -- claims`)
 * run as they are; otherwise every test file runs inside one of a few suites (test/suites), which
 * load the app once per suite instead of once per file (docs/development/testing.md).
 */
function namesFiles(argv) {
  return argv.some((arg, i) => !arg.startsWith('-') && !(i > 0 && TAKES_VALUE.test(argv[i - 1])));
}

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: namesFiles(process.argv.slice(2)) ? ['**/*.test.ts'] : ['**/test/suites/*.suite.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/helpers/after-each-file.ts'],
  // The test that boots a real Medusa store needs its own install and ~2 minutes: `npm run test:medusa-app`.
  testPathIgnorePatterns: ['/node_modules/', '/test/medusa/in-medusa-app\\.test\\.ts$'],
  transform: {
    '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testSequencer: '<rootDir>/test/helpers/processes-first-sequencer.js',
  testTimeout: 60000,
  // The Medusa store the plugin is tested in has its own node_modules (1,000+ packages): not jest's to crawl.
  modulePathIgnorePatterns: ['<rootDir>/test/medusa-app/'],
  // Three workers on both databases: a worker often waits on its spawned servers, CLIs and
  // browser, and a third fills that time. Measured with the suites, back to back (2 / 3 / 4
  // workers): PostgreSQL 78.7 / 66.9 / 74.8 s and 96.6 / 82.4 / 76.2 s; embedded 3 / 4: 95.6 / 116 s.
  maxWorkers: 3, // test/suites/suites.ts: SUITE_COUNT is a multiple of it
};
