import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How the receiver answers one request: a status (and headers), after an optional delay. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface Receiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  received: Received[];
  /** Decides each answer from the requests so far (default: 200). */
  answer: (request: Received, index: number) => Answer;
  close(): Promise<void>;
}

/** A local HTTP server standing in for a merchant's webhook receiver. */
export async function startReceiver(): Promise<Receiver> {
  const sockets = new Set<import('node:net').Socket>();
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => ({ status: 200 }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const got: Received = { path: request.url ?? '', headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(got);
      const answer = receiver.answer(got, receiver.received.length - 1);
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(answer.status, answer.headers ?? {});
        response.end('ok');
      }, answer.delayMs ?? 0);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
