import { removeRunDir } from './scratch-space';

export default function globalTeardown(): void {
  removeRunDir();
}
