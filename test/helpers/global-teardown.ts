import { backgroundWorkSettled } from './background-work';
import { removeRunDir } from './scratch-space';

export default async function globalTeardown(): Promise<void> {
  await backgroundWorkSettled();
  removeRunDir();
}
