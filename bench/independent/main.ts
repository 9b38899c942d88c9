import { independentTargets, renderIndependent } from './independent-report';
import { runIndependentShape } from './independent-shape';

// `npm run bench:independent`: the independent shape of `npm run bench` alone (~3 minutes).
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function main(): Promise<void> {
  const report = await runIndependentShape(SECONDS, (message) => process.stderr.write(`[bench] ${message}\n`));
  const targets = independentTargets(report);
  process.stdout.write(`${renderIndependent(report)}\n\n`);
  for (const t of targets) process.stdout.write(`${t.name.padEnd(70)} ${Number.isFinite(t.value) ? t.value.toFixed(2) : '-'}  ${t.goal}  ${t.met ? 'yes' : 'NO'}\n`);
  process.stdout.write(`\n${JSON.stringify({ independent: report, targets })}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
