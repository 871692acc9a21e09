// browser_test.mjs: salto view's page and salto watch's server, driven in Debian's Chromium
// (headless, through puppeteer-core from web/node_modules; nothing is downloaded)
//
//   node tests/browser/browser_test.mjs SALTO_BIN SOURCE_DIR
//
// salto view: the page loads from a file with no console error; the canvas is not blank and
// changes between two times; at each of several frame times the root the page draws is the
// motion's (motion.csv) there; the plots have the motion's number of series; frame steps and
// the ghost. salto watch: the first motion appears; a phase's duration changed in the file
// shows up as a new motion of the new duration, timed from the save; a broken file shows its
// error with its line, and fixing it brings the motion back; paths other than / and /events
// are refused, other methods too, and the server listens on loopback only.
// With SALTO_SCREENSHOTS=DIR it also writes the viewer's screenshots there (docs/images).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const [salto, src] = process.argv.slice(2).map((p) => path.resolve(p));
const require = createRequire(path.join(src, 'web', 'package.json'));
const puppeteer = require('puppeteer-core');
const chromium = process.env.SALTO_CHROMIUM || '/usr/bin/chromium';
const shots = process.env.SALTO_SCREENSHOTS ? path.resolve(process.env.SALTO_SCREENSHOTS) : null;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'salto-browser-'));
let failures = 0, checks = 0;

async function check(name, fn) {
    checks++;
    try {
        await fn();
        console.log(`ok   ${name}`);
    } catch (e) {
        failures++;
        console.log(`FAIL ${name}\n     ${String(e.stack || e).split('\n').slice(0, 6).join('\n     ')}`);
    }
}

function run(...args) {
    return execFileSync(salto, args, { cwd: src, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// a copy of a shipped problem in tmp, its character's path made absolute
function copyProblem(name, as) {
    const text = fs.readFileSync(path.join(src, 'problems', `${name}.yaml`), 'utf8');
    const abs = text.replace(/^character: *(\S+)/m, (m, c) => `character: ${path.resolve(src, 'problems', c)}`);
    const file = path.join(tmp, `${as}.yaml`);
    fs.writeFileSync(file, abs);
    return file;
}

function readCsv(file) {
    const [head, ...rows] = fs.readFileSync(file, 'utf8').trim().split('\n');
    return { names: head.split(','), rows: rows.map((r) => r.split(',').map(Number)) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--window-size=1280,1000'],
});

async function openPage(url) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('requestfailed', (r) => { if (!r.url().endsWith('/events')) errors.push(`request failed: ${r.url()}`); });
    await page.goto(url);
    await page.waitForFunction('window.saltoView && window.saltoView.ready', { timeout: 60000 });
    return { page, errors };
}

// the canvas as PNG bytes, and how many of its pixels differ from the background's
async function canvasShot(page) {
    const el = await page.$('#scene');
    return el.screenshot({ type: 'png' });
}

async function notBlank(page) {
    return page.evaluate(() => {
        const c = document.getElementById('scene');
        const gl = c.getContext('webgl2') || c.getContext('webgl');
        const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
        const px = new Uint8Array(w * h * 4);
        gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
        const colours = new Set();
        for (let i = 0; i < px.length; i += 4 * 97) colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
        return colours.size;
    });
}

try {
    // ---- salto view ----
    const problem = copyProblem('luxo_jump', 'luxo');
    const dir = path.join(tmp, 'luxo');
    try { run('solve', problem, '-o', dir, '--quiet'); } catch (e) { if (e.status !== 1) throw e; }
    run('play', path.join(dir, 'motion.json'), '--quiet');
    const out = run('view', path.join(dir, 'motion.json'));
    const html = path.join(dir, 'view.html');
    await check('salto view writes the page and names the ghost it found', () => {
        assert.match(out, /wrote .*view\.html .*the ghost: .*play\/sim\.json/);
        const text = fs.readFileSync(html, 'utf8');
        assert.ok(!/<script[^>]+src=|<link[^>]+href="(?!data:)|https?:\/\/(cdn|unpkg|jsdelivr)/i.test(text), 'the page links nothing');
    });
    const { page, errors } = await openPage(`file://${html}`);
    await check('the page loads from a file with no console error', () => assert.deepEqual(errors, []));
    const csv = readCsv(path.join(dir, 'motion.csv'));
    const col = (n) => csv.names.indexOf(n);
    await check('the duration is the motion\'s', async () => {
        const d = await page.evaluate(() => saltoView.duration());
        assert.ok(Math.abs(d - csv.rows[csv.rows.length - 1][0]) < 1e-9, `page ${d}`);
    });
    await check('the canvas is not blank and changes between two times', async () => {
        await page.evaluate(() => saltoView.setTime(0.1));
        const colours = await notBlank(page);
        assert.ok(colours > 8, `only ${colours} colours drawn`);
        const a = await canvasShot(page);
        await page.evaluate(() => saltoView.setTime(0.55));
        const b = await canvasShot(page);
        assert.ok(!a.equals(b), 'the same picture at 0.1 s and 0.55 s');
    });
    await check('at frame times the root drawn is the motion\'s (motion.csv)', async () => {
        for (const k of [0, 7, 23, 40, csv.rows.length - 1]) {
            const row = csv.rows[k];
            const root = await page.evaluate((t) => { saltoView.setTime(t); return saltoView.root(); }, row[0]);
            const want = [col('root_x') >= 0 ? row[col('root_x')] : 0, col('root_y') >= 0 ? row[col('root_y')] : 0,
                          col('root_z') >= 0 ? row[col('root_z')] : 0];
            for (let i = 0; i < 3; i++) {
                assert.ok(Math.abs(root[i] - want[i]) < 1e-5, `t = ${row[0]}: page ${root}, motion.csv ${want}`);
            }
        }
    });
    await check('the plots have the motion\'s series', async () => {
        const plots = await page.evaluate(() => saltoView.plots());
        const joints = csv.names.filter((n) => n !== 't' && !n.startsWith('root_')).length;
        assert.equal(plots['joint angles'], joints);
        assert.equal(plots['joint torques (validation)'], joints);
        assert.equal(plots['aggregate contact force f0'], 3);
        assert.ok(plots['validation residuals'] >= 2, JSON.stringify(plots)); // checks + threshold
        const drawn = await page.$$eval('.uplot', (els) => els.length);
        assert.equal(drawn, 4);
    });
    await check('the arrow keys step frame by frame; the plots\' cursors follow', async () => {
        await page.evaluate(() => saltoView.setTime(0.5));
        const ts = await page.evaluate(() => saltoView.frameTimes());
        await page.keyboard.press('ArrowRight');
        const t1 = await page.evaluate(() => saltoView.time());
        const k = ts.findIndex((t) => t > 0.5 + 1e-9);
        assert.ok(Math.abs(t1 - ts[k]) < 1e-9, `after 0.5 s: ${t1}, not ${ts[k]}`);
        await page.keyboard.press('ArrowLeft');
        await page.keyboard.press('ArrowLeft');
        const t2 = await page.evaluate(() => saltoView.time());
        assert.ok(Math.abs(t2 - ts[k - 2]) < 1e-9, `${t2}, not ${ts[k - 2]}`);
        const lefts = await page.$$eval('.plot .cursor', (els) => els.map((e) => parseFloat(e.style.left)));
        assert.equal(lefts.length, 4);
        for (const l of lefts) assert.ok(l > 0, `cursor at ${l}`);
    });
    await check('play advances time', async () => {
        await page.evaluate(() => saltoView.setTime(0));
        await page.click('#play');
        // (a busy machine may draw few frames: wait for it, up to 5 s)
        const moved = await page.waitForFunction(() => saltoView.time() > 0.05, { timeout: 5000 })
            .then(() => true, () => false);
        const t = await page.evaluate(() => saltoView.time());
        await page.click('#play');
        assert.ok(moved, `t = ${t} after 5 s of play`);
    });
    await check('the ghost (salto play\'s result) is drawn and can be hidden', async () => {
        await page.evaluate(() => saltoView.setTime(0.9));
        const a = await canvasShot(page);
        await page.click('#show-compare');
        const b = await canvasShot(page);
        await page.click('#show-compare');
        assert.ok(!a.equals(b), 'hiding the ghost changes nothing');
        assert.match(await page.$eval('#legend', (e) => e.textContent), /salto play/);
    });
    await check('still no console error', () => assert.deepEqual(errors, []));
    if (shots) {
        fs.mkdirSync(shots, { recursive: true });
        await page.evaluate(() => saltoView.setTime(0.45));
        await page.screenshot({ path: path.join(shots, 'view-luxo-jump.png') });
    }
    await page.close();

    if (shots) {
        // the screenshots for the docs: a bar motion and a 3-D one
        for (const [name, t, view] of [['highbar_dismount', 0.75, null], ['aerial_half_twist', 0.55, 'front']]) {
            const d = path.join(tmp, name);
            try { run('solve', copyProblem(name, name), '-o', d, '--quiet'); } catch (e) { if (e.status !== 1) throw e; }
            run('view', path.join(d, 'motion.json'));
            const p = await openPage(`file://${path.join(d, 'view.html')}`);
            await p.page.evaluate((tt, v) => { if (v) saltoView.view(v); saltoView.setTime(tt); }, t, view);
            await p.page.screenshot({ path: path.join(shots, `view-${name.replace(/_/g, '-')}.png`) });
            await check(`${name}'s page loads with no console error`, () => assert.deepEqual(p.errors, []));
            await p.page.close();
        }
    }

    // ---- salto watch ----
    // the dismount: its initial guess has a rotation, which a warm start must replace
    const wprob = copyProblem('highbar_dismount', 'watched');
    // its character copied beside it, so that a save of the character can be tried too
    const wchar = path.join(tmp, 'watched_character.yaml');
    const shipped = fs.readFileSync(wprob, 'utf8').match(/^character: *(\S+)/m)[1];
    fs.copyFileSync(shipped, wchar);
    fs.writeFileSync(wprob, fs.readFileSync(wprob, 'utf8').replace(/^character: *\S+/m, `character: ${wchar}`));
    const original = fs.readFileSync(wprob, 'utf8');
    const watch = spawn(salto, ['watch', wprob, '--port', '0', '-o', path.join(tmp, 'watch')],
                        { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    let wout = '', werr = '';
    watch.stdout.on('data', (b) => { wout += b; });
    watch.stderr.on('data', (b) => { werr += b; });
    const exited = new Promise((r) => watch.on('exit', (code, sig) => r({ code, sig })));
    for (let i = 0; i < 100 && !/serving http:\/\/127\.0\.0\.1:(\d+)\//.test(wout); i++) await sleep(100);
    const port = Number((wout.match(/serving http:\/\/127\.0\.0\.1:(\d+)\//) || [])[1]);
    await check('salto watch says where it serves', () => assert.ok(port > 0, wout + werr));
    const w = await openPage(`http://127.0.0.1:${port}/`);
    const loads = () => w.page.evaluate(() => saltoView.loads());
    await w.page.waitForFunction('saltoView.loads() >= 1', { timeout: 60000 });
    await check('the first motion appears', async () => {
        assert.ok(Math.abs((await w.page.evaluate(() => saltoView.duration())) - 1.8) < 1e-9);
    });
    // a phase's duration changed: the flight 0.6 -> 0.66 s (the paper's 10% longer flight)
    const longer = original.replace(/(- name: flight\n\s+duration:) 0\.6\b/, '$1 0.66');
    assert.notEqual(longer, original);
    let before = await loads();
    const saved = Date.now();
    fs.writeFileSync(wprob, longer);
    await w.page.waitForFunction((n) => saltoView.loads() > n, { timeout: 60000 }, before);
    const seconds = (Date.now() - saved) / 1000;
    console.log(`     from the save to the new motion on the page: ${seconds.toFixed(2)} s`);
    await check('a changed duration shows up as the new motion, within 10 s of the save', async () => {
        assert.ok(Math.abs((await w.page.evaluate(() => saltoView.duration())) - 1.86) < 1e-9);
        assert.ok(seconds < 10, `${seconds} s`);
        assert.match(await w.page.evaluate(() => saltoView.status()),
                     /updated .* after the save \(warm start from the last motion\); Solve_Succeeded/);
    });
    // a broken file (a key misspelt): its error, at its line, instead of the motion
    const lines = longer.split('\n');
    const at = lines.findIndex((l) => /^\s+duration: [0-9.]+$/.test(l));
    lines[at] = lines[at].replace('duration', 'duraton');
    fs.writeFileSync(wprob, lines.join('\n'));
    await w.page.waitForFunction(() => saltoView.error() !== null, { timeout: 60000 });
    await check('a broken file shows its error with its line', async () => {
        const err = await w.page.evaluate(() => saltoView.error());
        assert.match(err, new RegExp(`watched\\.yaml:${at + 1}:\\d+: error: .*duraton`), err);
        assert.ok(await w.page.$eval('#stage', (e) => e.classList.contains('stale')));
    });
    before = await loads();
    fs.writeFileSync(wprob, longer);
    await w.page.waitForFunction((n) => saltoView.loads() > n && saltoView.error() === null, { timeout: 60000 }, before);
    await check('fixed, the motion returns', async () => {
        assert.ok(Math.abs((await w.page.evaluate(() => saltoView.duration())) - 1.86) < 1e-9);
        assert.ok(!(await w.page.$eval('#stage', (e) => e.classList.contains('stale'))));
    });
    before = await loads();
    fs.appendFileSync(wchar, '\n# saved again\n');
    await w.page.waitForFunction((n) => saltoView.loads() > n, { timeout: 60000 }, before);
    // (the status is waited for, not read once: a save may reach the watcher as two changes,
    // and the second solve's "solving: ..." can stand there when the first motion has loaded;
    // a clean clone's run failed so once)
    await w.page.waitForFunction(() => /updated .* after the save/.test(saltoView.status()),
                                 { timeout: 60000 }).catch(() => {});
    await check('a save of the character file re-solves too', async () => {
        assert.match(await w.page.evaluate(() => saltoView.status()), /updated .* after the save/);
    });
    await check('the watched page had no console error', () => assert.deepEqual(w.errors, []));
    if (shots) await w.page.screenshot({ path: path.join(shots, 'watch-highbar-dismount.png') });
    await w.page.close();

    // what the server refuses
    const get = (p, method = 'GET') => new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: p, method }, (res) => {
            res.resume();
            resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end();
    });
    await check('paths outside / and /events are refused, and methods other than GET', async () => {
        for (const p of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/watched.yaml', '/events/../x',
                         '//etc/passwd', '/index.html/..']) {
            assert.equal(await get(p), 404, p);
        }
        assert.equal(await get('/', 'POST'), 405);
        assert.equal(await get('/', 'DELETE'), 405);
    });
    await check('it listens on loopback only', async () => {
        const hex = port.toString(16).toUpperCase().padStart(4, '0');
        const listening = fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
            .map((l) => l.trim().split(/\s+/)).filter((f) => f.length > 3 && f[3] === '0A' && f[1].endsWith(`:${hex}`));
        assert.equal(listening.length, 1, JSON.stringify(listening));
        assert.equal(listening[0][1], `0100007F:${hex}`);
        const v6 = fs.existsSync('/proc/net/tcp6') ? fs.readFileSync('/proc/net/tcp6', 'utf8') : '';
        assert.ok(!v6.split('\n').some((l) => l.includes(`:${hex} `) && / 0A /.test(l)), 'listens on IPv6');
        for (const [, addrs] of Object.entries(os.networkInterfaces())) {
            for (const a of addrs || []) {
                if (a.internal || a.family !== 'IPv4') continue;
                const refused = await new Promise((r) => {
                    const s = net.connect({ host: a.address, port }, () => { s.destroy(); r(false); });
                    s.on('error', () => r(true));
                });
                assert.ok(refused, `connected through ${a.address}`);
            }
        }
    });
    watch.kill('SIGINT');
    const end = await Promise.race([exited, sleep(10000).then(() => null)]);
    await check('Ctrl-C (SIGINT) stops it cleanly', () => {
        assert.ok(end, 'still running 10 s after SIGINT');
        assert.equal(end.code, 0, werr);
        assert.match(werr, /salto watch: stopped/);
    });
    if (!end) watch.kill('SIGKILL');
} catch (e) {
    failures++;
    console.log(`FAIL ${e.stack || e}`);
} finally {
    await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`${checks - failures} of ${checks} browser checks pass`);
process.exit(failures ? 1 : 0);
