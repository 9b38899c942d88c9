import { templateBuildSettled } from './embedded-template';
import { removeRunDir } from './scratch-space';

export default async function globalTeardown(): Promise<void> {
  await templateBuildSettled();
  removeRunDir();
}
