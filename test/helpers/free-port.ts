import fs from 'node:fs';
import net from 'node:net';

const MAX_PORT = 65_535;
const FIRST_UNPRIVILEGED_PORT = 1_024;
const PORTS_PER_WORKER = 500;

/**
 * Where this worker's ports come from: above the kernel's ephemeral range when there is room, else
 * below it. A port in that range can be handed out again at any time, to another file's `listen(0)`
 * or as the source port of an outgoing connection: a spawned server told to use one found
 * EADDRINUSE, or a hook server took it and answered another test's /readyz polls. Each jest worker
 * has a band of its own (as long as there are bands enough: 9 above Linux's default range), so
 * workers never offer each other the same port.
 */
function readPortBand(): { first: number; size: number } {
  const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
  const room = MAX_PORT - high >= PORTS_PER_WORKER * 2
    ? { from: high + 1, to: MAX_PORT }
    : { from: Math.max(FIRST_UNPRIVILEGED_PORT, low - PORTS_PER_WORKER * 10), to: low - 1 };
  const bands = Math.max(1, Math.floor((room.to - room.from + 1) / PORTS_PER_WORKER));
  const worker = Number(process.env.JEST_WORKER_ID ?? 1);
  return { first: room.from + ((worker - 1) % bands) * PORTS_PER_WORKER, size: PORTS_PER_WORKER };
}

let band: { first: number; size: number } | undefined;
let next = 0;

function listensFreely(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port nobody listens on, outside the ephemeral range; this process offers it again only after the rest of its band. */
export async function freePort(): Promise<number> {
  band ??= readPortBand();
  for (let tries = 0; tries < band.size; tries += 1) {
    const port = band.first + ((next += 1) % band.size);
    if (await listensFreely(port)) return port;
  }
  throw new Error(`no free port in ${band.first}–${band.first + band.size - 1}`);
}
