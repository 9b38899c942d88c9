import { createLoginLink } from '../core/dashboard/dashboard-sign-in';
import { setUpBench } from './bench-setup';

/**
 * `npm run bench:import`: a merchant's CSV of BENCH_IMPORT_ROWS advocates (default 100,000) uploaded
 * to the real server (`npm start`'s server on PostgreSQL) through the dashboard, as a browser posts
 * it, then worked by the server's import worker: the upload's time, the import's, rows per second,
 * and how long the dashboard's progress answer took meanwhile (the server stays responsive).
 */
async function main(): Promise<void> {
  const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
  const setup = await setUpBench(10, (message) => process.stderr.write(`[bench] ${message}\n`));
  try {
    const { server, tenant, db } = setup;
    const link = await createLoginLink(db, tenant.brandId);
    const login = await fetch(`${server.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ brand: tenant.brandId, token: link.token }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await fetch(`${server.url}/dashboard/advocates`, { headers: { cookie } })).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)![1]!;
    const lines = ['email,first_name,last_name,code'];
    for (let i = 1; i <= rows; i += 1) lines.push(`bench-import-${i}@example.com,Name${i},Last${i},`);
    const csv = lines.join('\n');
    const form = new FormData();
    form.set('csrf_token', csrf);
    form.set('file', new Blob([csv], { type: 'text/csv' }), 'advocates.csv');
    const uploadStarted = Date.now();
    const uploaded = await fetch(`${server.url}/dashboard/advocates/import`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: server.url }, body: form });
    const uploadSeconds = (Date.now() - uploadStarted) / 1000;
    if (uploaded.status !== 303) throw new Error(`upload answered ${uploaded.status}: ${(await uploaded.text()).slice(0, 500)}`);
    const progressUrl = `${server.url}${uploaded.headers.get('location')}?format=json`;
    const latencies: number[] = [];
    let status = '';
    for (;;) {
      const asked = Date.now();
      const progress = (await (await fetch(progressUrl, { headers: { cookie } })).json()) as { status: string; done_rows: number; created: number; refused: number };
      latencies.push(Date.now() - asked);
      status = progress.status;
      if (status === 'done' || status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const importSeconds = (Date.now() - uploadStarted) / 1000 - uploadSeconds;
    const created = Number((await db('advocates').where({ brand_id: tenant.brandId }).count({ n: '*' }).first())!.n) - 10;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    process.stdout.write(
      `import of ${rows.toLocaleString('en-US')} rows (${(csv.length / 1_048_576).toFixed(1)} MiB): upload and checks ${uploadSeconds.toFixed(1)} s; ` +
        `created ${created.toLocaleString('en-US')} advocates in ${importSeconds.toFixed(1)} s (${(created / importSeconds).toFixed(0)} rows/s), ${status}; ` +
        `progress answers meanwhile p50 ${at(0.5)} ms, max ${latencies.at(-1)} ms (${latencies.length} polls)\n`,
    );
  } finally {
    await setup.close();
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
