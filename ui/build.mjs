// Bundles the UI into dist/: index.html plus content-hashed files under dist/assets/, which the
// gateway serves (--ui-dir) under a strict Content-Security-Policy: no inline script or style,
// so index.html only references the bundle.
import * as esbuild from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const out = 'dist';
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'assets'), { recursive: true });

const result = await esbuild.build({
  entryPoints: { app: 'src/index.tsx' },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'esm',
  target: ['chrome109', 'firefox115', 'safari16'],
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.woff': 'file', '.woff2': 'file', '.ttf': 'file', '.svg': 'file', '.png': 'file', '.jpg': 'file' },
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(out, file));
const script = outputs.find((file) => file.endsWith('.js'));
const style = outputs.find((file) => file.endsWith('.css'));
writeFileSync(
  path.join(out, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Assisted Installer</title>
<link rel="stylesheet" href="/${style}">
<script type="module" src="/${script}"></script>
</head>
<body>
<div id="root"></div>
</body>
</html>
`,
);
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`ui: ${outputs.length} files, ${(bytes / 1024).toFixed(0)} KiB in ${out}/`);
