import { createEmbeddedTemplate } from './embedded-template';

// Run by globalSetup in a process of its own: PGlite's start-up is synchronous WASM, which in jest's
// own process would hold up handing test files to the workers for seconds.
createEmbeddedTemplate().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
