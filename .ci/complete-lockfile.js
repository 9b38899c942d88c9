#!/usr/bin/env node
// The npm registry this machine reaches serves only the platform packages of this platform, so
// `npm install` leaves the lockfile without entries for other platforms' optional binaries
// (@swc/core-darwin-arm64, …) and `npm ci` then refuses the lockfile. This adds those entries,
// marked optional with their os/cpu, exactly as npm writes them where the registry is complete;
// on this platform npm skips them. Idempotent.
const fs = require('node:fs');
const path = require('node:path');

// The lockfile to complete: the root's, or the one named (test/medusa-app has its own).
const file = process.argv[2] ? path.resolve(process.argv[2]) : path.resolve(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd', 'wasm32'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((candidate) => parts.includes(candidate));
  const cpu = CPU.find((candidate) => parts.includes(candidate)) ?? (parts.includes('universal') ? undefined : undefined);
  const libc = parts.find((part) => /^(gnu|gnueabihf|musl|musleabihf|msvc)$/.test(part));
  return { os, cpu, libc };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  const optional = entry.optionalDependencies;
  if (!optional) continue;
  const parentDir = location === '' ? '' : `${location}/`;
  for (const [name, version] of Object.entries(optional)) {
    const nested = `${parentDir}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[nested] || packages[hoisted]) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os && !cpu) continue; // not a platform binary: leave it to npm
    packages[hoisted] = {
      version: String(version).replace(/^[\^~=]/, ''),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(os ? { os: [os] } : {}),
      ...(libc && os === 'linux' ? { libc: [libc.startsWith('musl') ? 'musl' : 'glibc'] } : {}),
    };
    added += 1;
  }
}

const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
lock.packages = sorted;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
if (added > 0) console.log(`complete-lockfile: added ${added} other-platform optional entries`);
