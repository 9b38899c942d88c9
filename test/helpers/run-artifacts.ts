import fs from 'node:fs';
import path from 'node:path';
import { runChildScript } from './child-script';
import { runDir } from './scratch-space';

/**
 * Things globalSetup has a child process make in the run's folder while the workers start (the
 * embedded template, the Admin schema subset). The child writes each whole under another name and
 * renames it into place; when the child fails, `<name>.failed` holds its output for the waiters.
 */
export const RUN_ARTIFACTS = {
  /** A migrated embedded data directory that test files copy (embedded-template.ts). */
  embeddedTemplate: 'template',
  /** The part of Shopify's Admin schema the fake Shopify checks documents against first (test/shopify/admin-schema.ts). */
  adminSchemaSubset: 'shopify-admin-schema-subset.json',
};

const failedMarker = (name: string) => path.join(runDir(), `${name}.failed`);

/** globalSetup: runs `script`, which makes `name` in the run's folder; a failure is written for the waiters, then thrown. */
export async function makeRunArtifact(name: string, script: string): Promise<void> {
  try {
    await runChildScript(script);
  } catch (error) {
    fs.writeFileSync(failedMarker(name), (error as Error).message); // the child's output, stack included
    throw error;
  }
}

export type RunArtifactState = { made: true; path: string } | { made: false; failure: string | null };

/** Whether `name` is made yet (its path), or its making failed (why), or neither yet. */
export function runArtifactState(name: string): RunArtifactState {
  const artifact = path.join(runDir(), name);
  if (fs.existsSync(artifact)) return { made: true, path: artifact };
  const failed = failedMarker(name);
  return { made: false, failure: fs.existsSync(failed) ? fs.readFileSync(failed, 'utf8') : null };
}

/** The path of `name` once made; throws with the child's output if making it failed, or after `timeoutMs`. `what` names it in those errors. */
export async function runArtifact(name: string, what: string, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = runArtifactState(name);
    if (state.made) return state.path;
    if (state.failure !== null) throw new Error(`globalSetup could not make ${what}:\n${state.failure}`);
    if (Date.now() > deadline) throw new Error(`${what} was not made within ${timeoutMs} ms (${path.join(runDir(), name)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
