#!/usr/bin/env node
// The `referrals` command: runs the TypeScript CLI through tsx (no build step needed).
require('tsx/cjs');
require('./main.ts');
