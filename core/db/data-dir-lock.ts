import fs from 'node:fs';
import path from 'node:path';

// An OS lock held by the kernel on an open file description (OFD lock on Linux, flock on macOS):
// it ends with the process however it ends, kill -9 included, so a lock is never left stale.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { tryLock } = require('fs-native-extensions') as { tryLock(fd: number): boolean };

const LOCK_FILE = 'owner.lock';

/** Another live process holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number | null,
  ) {
    super(
      `the data directory ${dataDir} is in use by another process (${ownerPid === null ? 'pid unknown' : `pid ${ownerPid}`}); ` +
        'the embedded database can be opened by one process only',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  /** The data directory's absolute path. */
  readonly dataDir: string;
  release(): void;
}

function ownerPidOf(fd: number): number | null {
  const pid = Number.parseInt(fs.readFileSync(fd, 'utf8'), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Makes this process the single owner of `dataDir` (created if missing), or throws
 * DataDirInUseError naming the owner. The lock file is never deleted: unlinking it would let two
 * processes lock two different files of the same name.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const absolute = path.resolve(dataDir);
  fs.mkdirSync(absolute, { recursive: true });
  const fd = fs.openSync(path.join(absolute, LOCK_FILE), fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
  let locked = false;
  try {
    locked = tryLock(fd);
    if (!locked) throw new DataDirInUseError(absolute, ownerPidOf(fd));
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, `${process.pid}\n`, 0);
  } finally {
    if (!locked) fs.closeSync(fd);
  }
  let held = true;
  return {
    dataDir: absolute,
    release() {
      if (!held) return;
      held = false;
      fs.ftruncateSync(fd, 0);
      fs.closeSync(fd); // closing the descriptor is what releases the lock
    },
  };
}
