import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../app-context';
import { HttpError } from '../http-error';
import { dashboardDir } from './dashboard-files';

/** Every file the pages load: our own, and uPlot's build from its npm package (no CDN). */
const FILES: Record<string, { file: string; type: string }> = {
  'dashboard.css': { file: path.join(dashboardDir('assets'), 'dashboard.css'), type: 'text/css; charset=utf-8' },
  'dashboard.js': { file: path.join(dashboardDir('assets'), 'dashboard.js'), type: 'text/javascript; charset=utf-8' },
  'uplot.js': { file: require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
  // The storefront's script (docs/merchants/storefront.md), served at /referrals.js and /referrals.<hash>.js.
  'referrals.js': { file: path.join(dashboardDir('assets'), 'referrals.js'), type: 'text/javascript; charset=utf-8' },
  // The tab's icon, also answered at /favicon.ico (browsers ask there first).
  'icon.svg': { file: path.join(dashboardDir('assets'), 'icon.svg'), type: 'image/svg+xml' },
  'uplot.css': { file: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

let loaded: Map<string, Asset> | undefined;

function assets(): Map<string, Asset> {
  loaded ??= new Map(
    Object.entries(FILES).map(([name, { file, type }]) => {
      const body = fs.readFileSync(file);
      return [name, { body, type, hash: createHash('sha256').update(body).digest('hex').slice(0, 16) }];
    }),
  );
  return loaded;
}

/** An asset's URL carries its content hash, so it may be cached for a year and still change with a release. */
export function assetUrl(name: keyof typeof FILES | string): string {
  const asset = assets().get(name);
  if (!asset) throw new Error(`no dashboard asset ${name}`);
  return `/dashboard/assets/${name}?v=${asset.hash}`;
}

/** GET /dashboard/assets/:name */
export function serveAsset(ctx: Ctx, name: string): void {
  const asset = assets().get(name);
  if (!asset) throw new HttpError(404, `no dashboard asset ${name}`);
  ctx.set('Cache-Control', ctx.query.v === asset.hash ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
  ctx.set('ETag', `"${asset.hash}"`);
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (ctx.get('if-none-match') === `"${asset.hash}"`) {
    ctx.status = 304;
    return;
  }
  ctx.type = asset.type;
  ctx.body = asset.body;
}

/** The storefront script's versioned address: cached for a year, changed by a release. */
export function storefrontScriptPath(): string {
  return `/referrals.${assets().get('referrals.js')!.hash}.js`;
}

/**
 * GET /referrals.js (cached 5 minutes: the snippet's stable address) and /referrals.<hash>.js
 * (cached for a year). A script tag needs no CORS; any page may load it.
 */
export function serveStorefrontScript(ctx: Ctx, hash?: string): void {
  const asset = assets().get('referrals.js')!;
  if (hash !== undefined && hash !== asset.hash) throw new HttpError(404, `no referrals.js of version ${hash}: load ${storefrontScriptPath()} or /referrals.js`);
  ctx.query = hash ? { v: hash } : {};
  serveAsset(ctx, 'referrals.js');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
}
