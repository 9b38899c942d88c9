/** The plugin tested inside a real Medusa 2.21 store (test/medusa-app): `npm run test:medusa-app`. */
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['**/test/medusa/in-medusa-app.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 300000,
  maxWorkers: 1,
};
