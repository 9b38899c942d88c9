import { backgroundWorkSettled } from './background-work';
import { dropScratchTemplate } from './real-postgres';
import { removeRunDir } from './scratch-space';

export default async function globalTeardown(): Promise<void> {
  await backgroundWorkSettled();
  await dropScratchTemplate();
  removeRunDir();
}
