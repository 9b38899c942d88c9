import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import pino from 'pino';
import { createApp } from '../../server/app';
import { givenBrand } from '../helpers/fixtures';
import { closeServer, listen } from '../helpers/listen';
import { type TestApp, startTestApp } from '../helpers/test-app';

/** A POST sent in chunks with no Content-Length (Transfer-Encoding: chunked), as a streaming client sends it. */
async function postChunked(app: TestApp, path: string, headers: Record<string, string>, chunks: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  const server = await listen(app.app);
  try {
    return await new Promise((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path, method: 'POST', headers: { ...headers, 'content-type': 'application/json' } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
      });
      // The server may answer (and stop reading) before the last chunk: that is the point of a 413.
      request.on('error', reject);
      for (const chunk of chunks) request.write(chunk);
      request.end();
    });
  } finally {
    await closeServer(server);
  }
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

describe('request bodies', () => {
  it('returns 400 for malformed JSON', async () => {
    const brand = await givenBrand(t.db);
    const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send('{"email": "a@example.com",');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'request body is not valid JSON', code: 'invalid_request' });
  });

  it('returns 400 for a JSON array or an empty body', async () => {
    const brand = await givenBrand(t.db);
    const array = await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send('[1]');
    expect(array.status).toBe(400);
    const empty = await t.http.post('/api/v1/track/conversion').set(brand.headers);
    expect(empty.status).toBe(400);
  });

  it('returns 400, not 500, for a NUL character PostgreSQL cannot store', async () => {
    const brand = await givenBrand(t.db);
    const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send('{"email":"a\\u0000@example.com","order_id":"1","order_value":1}');
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('NUL');
  });

  it('returns 413 for a body over 1 MiB', async () => {
    const brand = await givenBrand(t.db);
    const big = JSON.stringify({ email: 'a@example.com', order_id: '1', order_value: 1, metadata: { pad: 'x'.repeat(1024 * 1024) } });
    const response = await t.http.post('/api/v1/track/conversion').set(brand.headers).set('Content-Type', 'application/json').send(big);
    expect(response.status).toBe(413);
    expect(response.body.success).toBe(false);
  });

  it('reads a body sent in several chunks without Content-Length, and refuses one that grows past 1 MiB with 413', async () => {
    const brand = await givenBrand(t.db);
    const order = JSON.stringify({ email: 'chunked@example.com', order_id: 'chunked-1', order_value: 12.5 });
    const pieces = [order.slice(0, 10), order.slice(10, 30), order.slice(30)];
    const recorded = await postChunked(t, '/api/v1/track/conversion', brand.headers, pieces);
    expect(recorded.status).toBe(200);
    expect(recorded.body).toEqual({ success: true, data: { attributed: false } });
    const pad = 'x'.repeat(64 * 1024);
    const growing = [`{"email":"a@example.com","order_id":"2","order_value":1,"metadata":{"pad":"`, ...Array.from({ length: 17 }, () => pad), '"}}'];
    const refused = await postChunked(t, '/api/v1/track/conversion', brand.headers, growing);
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ success: false, code: 'payload_too_large' });
  });

  it('a client that goes away mid-body is logged as a 400 of its own, not as a database outage', async () => {
    const brand = await givenBrand(t.db);
    const lines: Array<{ msg: string; status?: number }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const server = await listen(createApp({ db: t.db, config: t.config, logger }));
    try {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const headers = Object.entries({ ...brand.headers, 'content-type': 'application/json', 'content-length': '200' }).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(`POST /api/v1/track/conversion HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers.join('')}\r\n{"email":"gone@example.com",`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      const deadline = Date.now() + 5000;
      while (!lines.some((line) => line.msg === 'request') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(lines.find((line) => line.msg === 'request')).toMatchObject({ status: 400 });
      expect(lines.map((line) => line.msg).join(' ')).not.toMatch(/database/i);
    } finally {
      await closeServer(server);
    }
  });

  it('answers unknown routes with the error envelope', async () => {
    const response = await t.http.post('/api/v1/nothing-here').send({});
    expect(response.status).toBe(404);
    expect(response.body.success).toBe(false);
  });
});

describe('probes', () => {
  it('GET /healthz and GET /readyz answer 200', async () => {
    expect((await t.http.get('/healthz')).status).toBe(200);
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.data.status).toBe('ready');
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('describes every endpoint with request schemas derived from the zod schemas', async () => {
    const response = await t.http.get('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.paths).sort()).toEqual([
      '/api/v1/advocates',
      '/api/v1/advocates/by-email',
      '/api/v1/advocates/join',
      '/api/v1/advocates/{id}',
      '/api/v1/advocates/{id}/balance',
      '/api/v1/advocates/{id}/codes',
      '/api/v1/advocates/{id}/deactivate',
      '/api/v1/advocates/{id}/reactivate',
      '/api/v1/api-keys',
      '/api/v1/api-keys/{id}',
      '/api/v1/brand',
      '/api/v1/convert',
      '/api/v1/email-templates',
      '/api/v1/email-templates/{template}',
      '/api/v1/emails',
      '/api/v1/payouts',
      '/api/v1/payouts/mark-paid',
      '/api/v1/reviews',
      '/api/v1/reviews/{id}/approve',
      '/api/v1/reviews/{id}/reject',
      '/api/v1/rewards',
      '/api/v1/rewards/{id}',
      '/api/v1/rewards/{id}/approve',
      '/api/v1/rewards/{id}/void',
      '/api/v1/track/check-eligibility',
      '/api/v1/track/claim',
      '/api/v1/track/conversion',
      '/api/v1/track/refund',
      '/api/v1/track/visit',
      '/api/v1/webhook-deliveries/{id}/replay',
      '/api/v1/webhook-endpoints',
      '/api/v1/webhook-endpoints/{id}',
      '/api/v1/webhook-endpoints/{id}/deliveries',
      '/api/v1/webhook-endpoints/{id}/enable',
      '/api/v1/webhook-endpoints/{id}/test',
    ]);
    const webhookEndpoint = response.body.paths['/api/v1/webhook-endpoints'].post.requestBody.content['application/json'].schema;
    expect(webhookEndpoint.required).toEqual(['url']);
    expect(webhookEndpoint.properties.events.items.enum).toEqual(['claim.created', 'conversion.created', 'conversion.refunded', 'reward.credited', 'reward.reversed', 'reward.issued']);
    const conversion = response.body.paths['/api/v1/track/conversion'].post.requestBody.content['application/json'].schema;
    const [primary] = conversion.anyOf;
    expect(primary.required).toEqual(expect.arrayContaining(['order_id', 'order_value']));
    expect(primary.properties.order_value.type).toBe('number');
    const template = response.body.paths['/api/v1/email-templates/{template}'].put.requestBody.content['application/json'].schema;
    expect(template.required).toEqual(['subject', 'body']);
  });
});
