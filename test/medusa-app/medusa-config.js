// The store the plugin's integration tests boot: configured as docs/merchants/medusa.md tells a merchant, with
// everything the test varies (database, port, referral service) taken from the environment.
const { defineConfig } = require('@medusajs/framework/utils');

const referralOptions = {
  serviceUrl: process.env.REFERRALS_SERVICE_URL,
  brandId: process.env.REFERRALS_BRAND_ID,
  apiKey: process.env.REFERRALS_API_KEY,
  // Short delays so a test sees a retry within seconds; the defaults suit a real store.
  retryBaseDelayMs: Number(process.env.REFERRALS_RETRY_BASE_DELAY_MS || 1000),
  retryMaxDelayMs: Number(process.env.REFERRALS_RETRY_MAX_DELAY_MS || 600000),
};

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: '*',
      adminCors: '*',
      authCors: '*',
      jwtSecret: 'medusa-test-app-jwt',
      cookieSecret: 'medusa-test-app-cookie',
    },
  },
  admin: { disable: true },
  plugins: [{ resolve: '@referrals/medusa-plugin', options: referralOptions }],
});
