import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { CliOutput } from './run-cli';

/**
 * The embedded database can be opened by one process only. While `npm start` holds it, the CLI
 * sends its command line over this unix socket and the server runs it on its own connection.
 */
export function adminSocketPath(dataDir: string): string {
  return path.resolve(dataDir, 'admin.sock');
}

export function serveAdminSocket(socketPath: string, run: (argv: string[]) => Promise<CliOutput>): net.Server {
  if (fs.existsSync(socketPath)) fs.unlinkSync(socketPath);
  const server = net.createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', async (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end === -1) return;
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

/** The running server's answer, or null when no server holds the data directory. */
export function forwardToServer(socketPath: string, argv: string[]): Promise<CliOutput | null> {
  if (!fs.existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(JSON.stringify(argv) + '\n'));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(JSON.parse(answer) as CliOutput));
    socket.on('error', () => {
      // A socket left by a server that crashed: nobody holds the data directory any more.
      fs.rmSync(socketPath, { force: true });
      resolve(null);
    });
  });
}
