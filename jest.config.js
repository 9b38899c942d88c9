/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
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
  // On the embedded database a worker waits on its spawned servers and CLIs: a third worker fills
  // that time (mean of 3-4 runs: 72 s wall against 76 s on 2 cores). On PostgreSQL a third was slower.
  maxWorkers: process.env.TEST_DATABASE_URL ? 2 : 3,
};
