// Adds lock entries for @biomejs platform binaries the package mirror lacks.
const fs = require('fs');
const file = process.argv[2];
const l = JSON.parse(fs.readFileSync(file));
const v = l.packages['node_modules/@biomejs/biome'].version;
const plat = {
  'android-arm64': ['android', 'arm64'], 'android-x64': ['android', 'x64'],
  'darwin-arm64': ['darwin', 'arm64'], 'darwin-x64': ['darwin', 'x64'],
  'linux-arm64': ['linux', 'arm64', 'glibc'], 'linux-x64': ['linux', 'x64', 'glibc'],
  'linux-arm64-musl': ['linux', 'arm64', 'musl'], 'linux-x64-musl': ['linux', 'x64', 'musl'],
  'win32-arm64': ['win32', 'arm64'], 'win32-x64': ['win32', 'x64'],
};
const out = {};
for (const [k, val] of Object.entries(l.packages)) {
  out[k] = val;
  if (k === 'node_modules/@biomejs/biome') {
    for (const [name, [os, cpu, libc]] of Object.entries(plat)) {
      const key = `node_modules/@biomejs/cli-${name}`;
      if (l.packages[key]) { out[key] = l.packages[key]; continue; }
      const e = { version: v, cpu: [cpu], dev: true };
      if (libc) e.libc = [libc];
      Object.assign(e, { license: 'MIT OR Apache-2.0', optional: true, os: [os], engines: { node: '>=14.21.3' } });
      out[key] = e;
    }
  }
}
l.packages = out;
fs.writeFileSync(file, JSON.stringify(l, null, 2) + '\n');
