import fs from 'node:fs';
import net from 'node:net';
import { freePort } from '../helpers/free-port';

describe('freePort (the ports tests give the servers they start)', () => {
  it('hands out distinct ports outside the kernel\'s ephemeral range, each free to listen on', async () => {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(port < low || port > high).toBe(true);
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('skips ports something already listens on', async () => {
    const offered = await freePort();
    // The ports after it in this worker's band: a port handed out without checking would be one of them.
    const holders = [offered + 1, offered + 2].map((port) => net.createServer().listen(port, '127.0.0.1'));
    // A port another program holds already is just as taken.
    await Promise.all(holders.map((holder) => new Promise((resolve) => holder.once('listening', resolve).once('error', resolve))));
    try {
      expect([offered + 1, offered + 2]).not.toContain(await freePort());
    } finally {
      await Promise.all(holders.map((holder) => new Promise((resolve) => holder.close(resolve))));
    }
  });
});
