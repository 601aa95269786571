#!/usr/bin/env node
// Runs Playwright MCP's own test suite (microsoft/playwright `tests/mcp`, fetched at a pinned
// commit into a temporary folder, never copied into this repository) through the suite's own
// fixtures, unchanged, against agentkit-browser-mcp and against @playwright/mcp (the control),
// and prints pass counts per spec file side by side (issue 42).
//
//   cd bench/playwright_suite && npm ci
//   node run.mjs --agentkit ../../build-e2e/bin/agentkit-browser-mcp [--server both|agentkit|control]
//                [--repo DIR|URL] [--commit SHA] [--files core,click] [--grep RE] [--workers N]
//                [--agentkit-args "--output-mode=playwright"] [--json FILE] [--failures FILE] [--keep]
//
// How the suite is pointed at a server: its fixtures start `node
// packages/playwright-core/lib/entry/mcp.js <args>`; the harness builds that folder from the
// playwright-core the test runner ships, with `entry/mcp.js` replaced by a shim that either runs
// the control's own entry point (in-process, as the fixtures would) or execs agentkit-browser-mcp
// with the same arguments and stdio. Both servers see exactly the arguments each test gives.
// Browsers: Debian's Chromium, through a PLAYWRIGHT_BROWSERS_PATH whose Chromium builds are links
// to /usr/lib/chromium/chromium (never `playwright install`). Only 127.0.0.1 pages are used.
//
// Which spec files: those that start the browser MCP server through './fixtures'. Left out, with
// the reason printed: the CLI's, the test-runner MCP server's (`test-mcp`) and files that test
// Playwright's own internals in-process (config-resolve, semver).

import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// The newest microsoft/playwright commit whose tests/mcp matches @playwright/mcp 0.0.83 (its
// playwright 1.64.0-alpha of 2026-09-28) closely enough that the control passes the suite.
const PINNED_COMMIT = 'd4e1023f6c03a8dced50eb3db88c2217e7c1a86a';
const DEFAULT_REPO = 'https://github.com/microsoft/playwright.git';
const CHROMIUM = '/usr/lib/chromium/chromium';

function parseArgs(argv) {
  const o = { server: 'both', repo: process.env.PLAYWRIGHT_REPO || DEFAULT_REPO, commit: PINNED_COMMIT,
    workers: 2, files: [], grep: '', agentkitArgs: [], keep: false, json: '', failures: '',
    agentkit: process.env.AGENTKIT_BROWSER_MCP || '' };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) die(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--server') o.server = value();
    else if (a === '--agentkit') o.agentkit = value();
    else if (a === '--repo') o.repo = value();
    else if (a === '--commit') o.commit = value();
    else if (a === '--workers') o.workers = Number(value());
    else if (a === '--files') o.files = value().split(',').filter(Boolean);
    else if (a === '--grep') o.grep = value();
    else if (a === '--agentkit-args') o.agentkitArgs = value().split(/\s+/).filter(Boolean);
    else if (a === '--json') o.json = value();
    else if (a === '--failures') o.failures = value();
    else if (a === '--keep') o.keep = true;
    else if (a === '--help' || a === '-h') { console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 12).join('\n')); process.exit(0); }
    else die(`unknown argument ${a}; see --help`);
  }
  if (!['both', 'agentkit', 'control'].includes(o.server)) die('--server is both, agentkit or control');
  if (o.server !== 'control') {
    if (!o.agentkit) die('--agentkit PATH (or AGENTKIT_BROWSER_MCP) names the agentkit-browser-mcp binary');
    o.agentkit = path.resolve(o.agentkit);
    if (!fs.existsSync(o.agentkit)) die(`no agentkit binary at ${o.agentkit}`);
  }
  if (!Number.isInteger(o.workers) || o.workers < 1) die('--workers is a positive integer');
  return o;
}

function die(message) {
  console.error(`playwright_suite: ${message}`);
  process.exit(2);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'buffer', maxBuffer: 1 << 30, ...opts });
  if (r.status !== 0)
    die(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${String(r.stderr || '').slice(-2000)}`);
  return r.stdout;
}

// The suite's sources at the pinned commit: from a local clone (a directory) or fetched by
// commit from a remote into the temporary folder.
function fetchSources(o, work) {
  const wanted = ['tests/mcp', 'tests/config', 'tests/assets', 'tests/third_party', 'packages/playwright-core/src/tools/mcp/config.d.ts'];
  let gitDir;
  if (fs.existsSync(o.repo)) {
    gitDir = o.repo;
  } else {
    gitDir = path.join(work, '.git-fetch');
    run('git', ['init', '--quiet', '--bare', gitDir]);
    run('git', ['--git-dir', gitDir, 'fetch', '--quiet', '--depth', '1', '--filter=blob:none', o.repo, o.commit]);
  }
  const tar = run('git', ['--git-dir', gitDir, 'archive', o.commit, ...wanted]);
  run('tar', ['-x', '-C', work], { input: tar });
  const tsconfig = path.join(work, 'tsconfig.json');
  if (!fs.existsSync(tsconfig)) fs.writeFileSync(tsconfig, '{ "compilerOptions": { "esModuleInterop": true } }\n');
}

function link(target, at) {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at);
}

// node_modules for the fetched tests: the harness's packages, with `playwright` and
// `playwright-core` being the test runner's own copies (one Playwright in the runner process).
function buildModules(work) {
  const nm = path.join(here, 'node_modules');
  if (!fs.existsSync(path.join(nm, '@playwright/test')))
    die(`run \`npm ci\` in ${here} first`);
  const runnerNm = path.join(nm, '@playwright/test/node_modules');
  const out = path.join(work, 'node_modules');
  fs.mkdirSync(out);
  for (const name of fs.readdirSync(nm)) {
    if (name.startsWith('.') || name === 'playwright' || name === 'playwright-core') continue;
    link(path.join(nm, name), path.join(out, name));
  }
  for (const name of ['playwright', 'playwright-core'])
    link(fs.existsSync(path.join(runnerNm, name)) ? path.join(runnerNm, name) : path.join(nm, name), path.join(out, name));

  // packages/playwright-core/lib: the runner's playwright-core lib, entry/mcp.js a shim.
  const coreLib = fs.realpathSync(path.join(out, 'playwright-core/lib'));
  const lib = path.join(work, 'packages/playwright-core/lib');
  fs.mkdirSync(path.join(lib, 'entry'), { recursive: true });
  for (const name of fs.readdirSync(coreLib))
    if (name !== 'entry') link(path.join(coreLib, name), path.join(lib, name));
  for (const name of fs.readdirSync(path.join(coreLib, 'entry')))
    if (name !== 'mcp.js') link(path.join(coreLib, 'entry', name), path.join(lib, 'entry', name));
  fs.writeFileSync(path.join(lib, 'entry/mcp.js'), `// agentkit playwright_suite shim: the server under test.
const server = JSON.parse(process.env.AGENTKIT_PWSUITE_SERVER || '{}');
if (server.kind === 'agentkit') {
  const { spawn } = require('child_process');
  const child = spawn(server.binary, [...server.args, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code === null ? 128 : code));
} else if (server.kind === 'control') {
  require(server.entry);
} else {
  process.stderr.write('AGENTKIT_PWSUITE_SERVER is not set\\n');
  process.exit(2);
}
`);
  fs.writeFileSync(path.join(work, 'packages/playwright-core/package.json'), '{ "name": "playwright-core-under-test" }\n');
  // The fixtures resolve the test runner's CLI (for its own MCP server, not run here) at load.
  link(fs.realpathSync(path.join(out, 'playwright')), path.join(work, 'packages/playwright-test'));
}

// Every Chromium build any Playwright here asks for is Debian's Chromium.
function buildBrowsers(work) {
  const dir = path.join(work, 'ms-playwright');
  const revisions = new Set();
  const seen = new Set();
  const walk = d => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      if (name === 'playwright-core') {
        const real = fs.realpathSync(p);
        if (seen.has(real)) continue;
        seen.add(real);
        const browsers = JSON.parse(fs.readFileSync(path.join(real, 'browsers.json'), 'utf8')).browsers;
        for (const b of browsers) if (b.name.startsWith('chromium')) revisions.add(`${b.name}@${b.revision}`);
      } else if (name === 'node_modules' || name.startsWith('@')) {
        walk(p);
      } else if (fs.existsSync(path.join(p, 'node_modules'))) {
        walk(path.join(p, 'node_modules'));
      }
    }
  };
  walk(path.join(here, 'node_modules'));
  for (const entry of revisions) {
    const [name, revision] = entry.split('@');
    const base = path.join(dir, `${name.replace(/-/g, '_')}-${revision}`);
    if (name === 'chromium') link(CHROMIUM, path.join(base, 'chrome-linux64/chrome'));
    else link(CHROMIUM, path.join(base, 'chrome-headless-shell-linux64/chrome-headless-shell'));
    fs.writeFileSync(path.join(base, 'INSTALLATION_COMPLETE'), '');
    fs.writeFileSync(path.join(base, 'DEPENDENCIES_VALIDATED'), '');
  }
  return dir;
}

const LEFT_OUT = [
  [/^cli-|^trace-cli/, 'the playwright CLI, not the MCP server'],
  [/^(test-|generator|planner|init-agents|seed-default-project)/, 'the test-runner MCP server (test-mcp)'],
  [/^(config-resolve|semver)\./, "Playwright's own code in-process"],
  [/^(dashboard|devtools|annotate|mcp-server-bind)\./, 'the playwright CLI and its dashboard'],
];

function specFiles(work, wanted) {
  const dir = path.join(work, 'tests/mcp');
  const picked = [];
  const left = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith('.spec.ts')) continue;
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    let reason = LEFT_OUT.find(([re]) => re.test(name))?.[1];
    if (!reason && /test-mcp|cli-fixtures/.test(text)) reason = 'the test-runner MCP server (test-mcp)';
    if (!reason && !/from '\.\/fixtures'/.test(text)) reason = 'does not start the MCP server';
    if (reason) { left.push([name, reason]); continue; }
    if (wanted.length && !wanted.some(w => name === w || name === `${w}.spec.ts`)) continue;
    picked.push(name);
  }
  if (wanted.length && picked.length !== wanted.length)
    die(`--files names a file that is not one of the suite's server spec files: ${wanted.join(',')}`);
  return { picked, left };
}

function runSuite(o, work, browsers, files, server) {
  const report = path.join(work, `report-${server.kind}.json`);
  const cli = path.join(work, 'node_modules/@playwright/test/cli.js');
  const args = [cli, 'test', '--config', path.join(work, 'tests/mcp/playwright.config.ts'),
    '--project=chromium', `--workers=${o.workers}`, '--reporter=json', '--output', path.join(work, `results-${server.kind}`),
    ...(o.grep ? ['--grep', o.grep] : []), ...files.map(f => `tests/mcp/${f}`)];
  return new Promise(resolve => {
    const child = spawn(process.execPath, args, {
      cwd: work,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, CI: '', PLAYWRIGHT_BROWSERS_PATH: browsers, PLAYWRIGHT_JSON_OUTPUT_NAME: report,
        AGENTKIT_PWSUITE_SERVER: JSON.stringify(server), PW_TEST_HTML_REPORT_OPEN: 'never' },
    });
    child.on('exit', () => {
      if (!fs.existsSync(report)) die(`the ${server.kind} run wrote no report`);
      const parsed = JSON.parse(fs.readFileSync(report, 'utf8'));
      for (const e of parsed.errors || [])
        console.error(`${server.kind}: the runner said: ${String(e.message).replace(/\u001b\[[0-9;]*m/g, '').slice(0, 600)}`);
      resolve(parsed);
    });
  });
}

// Per spec file: passed / run, and each failing test's first error line.
function tally(report) {
  const files = new Map();
  const walk = (suite, file) => {
    file = suite.file ? path.basename(suite.file) : file;
    for (const spec of suite.specs || []) {
      for (const t of spec.tests || []) {
        const row = files.get(file) || { passed: 0, failed: 0, skipped: 0, failures: [] };
        files.set(file, row);
        const status = t.status === 'expected' || t.status === 'flaky' ? 'passed'
          : t.status === 'skipped' ? 'skipped' : 'failed';
        ++row[status];
        if (status === 'failed') {
          const err = (t.results || []).flatMap(r => r.errors || [r.error]).filter(Boolean)[0];
          const message = String(err?.message || '').replace(/\u001b\[[0-9;]*m/g, '');
          row.failures.push({ title: spec.title, line: spec.line, error: message.slice(0, 1500) });
        }
      }
    }
    for (const child of suite.suites || []) walk(child, file);
  };
  for (const s of report.suites || []) walk(s, '');
  return files;
}

const o = parseArgs(process.argv.slice(2));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentkit-pwsuite-'));
try {
  fetchSources(o, work);
  buildModules(work);
  const browsers = buildBrowsers(work);
  const { picked, left } = specFiles(work, o.files);
  console.log(`Playwright tests/mcp at ${o.commit.slice(0, 10)}: ${picked.length} spec files (${work})`);
  for (const [name, reason] of left) if (!o.files.length) console.log(`  left out ${name}: ${reason}`);

  const servers = [];
  if (o.server !== 'agentkit')
    servers.push({ kind: 'control', entry: path.join(here, 'node_modules/@playwright/mcp/node_modules/playwright-core/lib/entry/mcp.js') });
  if (o.server !== 'control')
    servers.push({ kind: 'agentkit', binary: o.agentkit, args: o.agentkitArgs });
  for (const s of servers)
    if (s.kind === 'control' && !fs.existsSync(s.entry))
      s.entry = path.join(here, 'node_modules/playwright-core/lib/entry/mcp.js');

  const results = {};
  for (const server of servers) {
    const started = Date.now();
    results[server.kind] = tally(await runSuite(o, work, browsers, picked, server));
    console.log(`${server.kind}: ran in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }

  const kinds = Object.keys(results);
  const width = Math.max(...picked.map(f => f.length), 10);
  console.log(['spec file'.padEnd(width), ...kinds.map(k => `${k} passed/run`.padStart(22))].join(' '));
  const totals = Object.fromEntries(kinds.map(k => [k, { passed: 0, run: 0 }]));
  for (const f of picked) {
    const cells = kinds.map(k => {
      const r = results[k].get(f) || { passed: 0, failed: 0 };
      totals[k].passed += r.passed;
      totals[k].run += r.passed + r.failed;
      return `${r.passed}/${r.passed + r.failed}`.padStart(22);
    });
    console.log([f.padEnd(width), ...cells].join(' '));
  }
  console.log(['total'.padEnd(width), ...kinds.map(k => `${totals[k].passed}/${totals[k].run}`.padStart(22))].join(' '));

  const plain = Object.fromEntries(kinds.map(k => [k, Object.fromEntries(results[k])]));
  if (o.json) fs.writeFileSync(o.json, JSON.stringify({ commit: o.commit, files: picked, results: plain }, null, 1));
  if (o.failures) {
    const lines = [];
    for (const k of kinds)
      for (const [file, r] of results[k])
        for (const fail of r.failures)
          lines.push(`## ${k} ${file}:${fail.line} ${fail.title}\n${fail.error}\n`);
    fs.writeFileSync(o.failures, lines.join('\n'));
  }
} finally {
  if (!o.keep) fs.rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
