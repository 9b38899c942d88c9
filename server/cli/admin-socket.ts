import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { DataDirLock } from '../../core/db/data-dir-lock';
import type { CliOutput } from './run-cli';

/**
 * The embedded database can be opened by one process only. While `npm start` owns it, the CLI
 * sends its command line over this unix socket and the server runs it on its own connection.
 */
export function adminSocketPath(dataDir: string): string {
  return path.resolve(dataDir, 'admin.sock');
}

/**
 * Serves the CLI. Takes the data directory's lock as proof of ownership: only the owner may replace
 * a socket file, and a file found here was left by an owner that died.
 */
export function serveAdminSocket(lock: DataDirLock, run: (argv: string[]) => Promise<CliOutput>): net.Server {
  const socketPath = adminSocketPath(lock.dataDir);
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    let buffered = '';
    let answered = false;
    socket.setEncoding('utf8');
    socket.on('data', async (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end === -1 || answered) return;
      answered = true;
      let output: CliOutput;
      try {
        output = await run(JSON.parse(buffered.slice(0, end)) as string[]);
      } catch (error) {
        output = { code: 1, stdout: '', stderr: `error: ${(error as Error).message}\n` };
      }
      socket.end(JSON.stringify(output) + '\n');
    });
    socket.on('error', () => socket.destroy());
  });
  server.listen(socketPath, () => fs.chmodSync(socketPath, 0o600));
  return server;
}

/** The socket's process went away after the command was sent: it may or may not have run. */
export class OwnerHungUpError extends Error {}

/**
 * The owner's answer, or null when nothing answers on the socket (no file, or a file left by a
 * crash). Never removes the file: only the data directory's owner may do that.
 */
export function askOwner(socketPath: string, argv: string[]): Promise<CliOutput | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let connected = false;
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(JSON.stringify(argv) + '\n');
    });
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', () => undefined); // 'close' follows and decides
    socket.on('close', () => {
      if (!connected) return resolve(null);
      try {
        resolve(JSON.parse(answer) as CliOutput);
      } catch {
        reject(new OwnerHungUpError(`the server owning ${path.dirname(socketPath)} closed the connection before answering; the command may or may not have run`));
      }
    });
  });
}
