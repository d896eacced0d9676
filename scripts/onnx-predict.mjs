// onnx-predict.mjs — run an ONNX model on a data file with onnxruntime
// (npm's onnxruntime-node, CPU), as a peer that checks Pursuit's ONNX export.
//
//   node scripts/onnx-predict.mjs MODEL.onnx DATA [--time]
//
// DATA is LIBSVM text ("label index:value ...", the label ignored) or dense
// rows of features (comma- or space-separated, no label). The feature count
// is the model input's second dimension. One line per row goes to stdout:
// a classifier's label then its scores, a regressor's value, each number as
// the shortest text that reads back the same float32. With --time, the
// seconds spent in session.run (all rows as one batch) go to stderr as
// "onnxruntime: N rows in S s".
//
// onnxruntime-node is looked for in $ONNXRT_DIR/node_modules, by default
// .cache/onnxrt/node_modules under the repository (scripts/onnxruntime.sh
// installs it there).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ortDir = resolve(process.env.ONNXRT_DIR || join(here, '..', '.cache', 'onnxrt'));
const require = createRequire(join(ortDir, 'package.json'));

function fail(msg) {
  process.stderr.write(`onnx-predict: ${msg}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const time = args.includes('--time');
const files = args.filter((a) => a !== '--time');
if (files.length !== 2) fail('usage: node scripts/onnx-predict.mjs MODEL.onnx DATA [--time]');
const [modelPath, dataPath] = files;

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  fail(`onnxruntime-node not found under ${ortDir} (run scripts/onnxruntime.sh): ${e.message}`);
}

// readRows parses DATA into a Float32Array of rows × features.
function readRows(path, features) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const rows = [];
  for (const [n, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const row = new Float32Array(features);
    const tokens = line.split(/[\s,]+/);
    if (line.includes(':')) {
      for (const tok of tokens.slice(1)) {
        const [i, v] = tok.split(':');
        const j = Number(i) - 1;
        if (!Number.isInteger(j) || j < 0 || v === undefined || Number.isNaN(Number(v))) fail(`${path}:${n + 1}: bad entry "${tok}"`);
        if (j >= features) fail(`${path}:${n + 1}: feature ${j + 1}, the model takes ${features}`);
        row[j] = Number(v);
      }
    } else {
      if (tokens.length !== features) fail(`${path}:${n + 1}: ${tokens.length} values, the model takes ${features}`);
      tokens.forEach((v, j) => {
        if (Number.isNaN(Number(v))) fail(`${path}:${n + 1}: "${v}" is not a number`);
        row[j] = Number(v);
      });
    }
    rows.push(row);
  }
  const x = new Float32Array(rows.length * features);
  rows.forEach((r, i) => x.set(r, i * features));
  return { x, n: rows.length };
}

// text prints a float32 as the shortest decimal that reads back the same
// float32 (toPrecision(9) always does; trimmed where fewer digits suffice).
function text(v) {
  if (typeof v === 'bigint' || typeof v === 'string') return String(v);
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

const session = await ort.InferenceSession.create(modelPath);
const input = session.inputMetadata[0];
const features = input.shape?.[1];
if (typeof features !== 'number') fail(`${modelPath}: the input ${input.name} has no fixed feature count`);
const { x, n } = readRows(dataPath, features);
const feeds = { [input.name]: new ort.Tensor('float32', x, [n, features]) };
const t0 = process.hrtime.bigint();
const out = await session.run(feeds);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
if (time) process.stderr.write(`onnxruntime: ${n} rows in ${secs.toFixed(4)} s\n`);

const cols = session.outputNames.map((name) => {
  const t = out[name];
  const width = t.dims.length > 1 ? t.dims[1] : 1;
  return { data: t.data, width };
});
const lines = [];
for (let i = 0; i < n; i++) {
  const parts = [];
  for (const c of cols) {
    for (let j = 0; j < c.width; j++) parts.push(text(c.data[i * c.width + j]));
  }
  lines.push(parts.join(' '));
}
process.stdout.write(lines.join('\n') + (n > 0 ? '\n' : ''));
