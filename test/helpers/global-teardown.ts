import { removeEmbeddedRun } from './embedded-template';

export default function globalTeardown(): void {
  removeEmbeddedRun();
}
