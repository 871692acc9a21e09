// viewer.js: salto view's page. The data (salto view's JSON, in #salto-data, or from salto
// watch's events) holds the character's geometry in its bodies' frames, each motion's body
// frames, root, centre of mass, contact sites and forces frame by frame, and the plots.
// three.js comes inlined as text (#three-core, #three-module) and is imported from blob URLs,
// so the page works offline from a file; uPlot is a global from its inlined script.
//
// World axes as salto's: z up, x forward. window.saltoView exposes the page's state for the
// browser tests (and for anyone scripting the page).

async function loadThree() {
    const text = (id) => document.getElementById(id).textContent;
    const blobUrl = (s) => URL.createObjectURL(new Blob([s], { type: 'text/javascript' }));
    const core = blobUrl(text('three-core'));
    const mod = blobUrl(text('three-module').split("'./three.core.js'").join(JSON.stringify(core)));
    return import(mod);
}

const THREE = await loadThree();
const $ = (id) => document.getElementById(id);

// ---- the 3-D scene ----

const canvas = $('scene');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdfe4ea);
const camera = new THREE.PerspectiveCamera(40, 1, 0.02, 500);
camera.up.set(0, 0, 1);
scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8270, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(-3, -5, 8);
scene.add(sun);

let world = null;   // the objects of the motion shown (rebuilt for each data)
let data = null;
const view = { t: 0, playing: false, speed: 1, last: 0, follow: true,
               orbit: { az: -Math.PI / 2, el: 0.12, r: 4, target: new THREE.Vector3(0, 0, 1) } };

const scratch = new THREE.Vector3(); // showTime's force, reused frame after frame
const colours = { near: 0x3c5a99, far: 0x93a9d6, trunk: 0x46536b, ghost: 0xe07a2f,
                  site: 0xd62728, force: 0x1a9641, com: 0x111111, bar: 0x555555, box: 0xb59a74 };

function farSide(name) { return /_[lL]$/.test(name); }

// a mesh for geometry g in its body's frame
function geomMesh(g, material) {
    let geo, mesh;
    const a = new THREE.Vector3(...g.a), b = new THREE.Vector3(...g.b);
    if (g.shape === 'capsule') {
        const len = a.distanceTo(b);
        geo = len > 1e-9 ? new THREE.CapsuleGeometry(g.r, len, 6, 12) : new THREE.SphereGeometry(g.r, 16, 12);
        mesh = new THREE.Mesh(geo, material);
        mesh.position.copy(a).add(b).multiplyScalar(0.5);
        if (len > 1e-9) {
            mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), b.clone().sub(a).normalize());
        }
    } else if (g.shape === 'box') {
        geo = new THREE.BoxGeometry(2 * g.b[0], 2 * g.b[1], 2 * g.b[2]);
        mesh = new THREE.Mesh(geo, material);
        mesh.position.copy(a);
    } else {
        geo = new THREE.SphereGeometry(g.r, 16, 12);
        mesh = new THREE.Mesh(geo, material);
        mesh.position.copy(a);
    }
    return mesh;
}

// per frame: positions (3 per body) and quaternions (4 per body) of a motion's body frames
function bodyTracks(m, nbody) {
    const nf = m.t.length;
    const pos = new Float64Array(nf * nbody * 3), quat = new Float64Array(nf * nbody * 4);
    const M = new THREE.Matrix4(), q = new THREE.Quaternion(), prev = new THREE.Quaternion();
    for (let k = 0; k < nf; k++) {
        const row = m.bodies[k];
        for (let b = 0; b < nbody; b++) {
            const o = 12 * b, R = row.slice(o + 3, o + 12);
            M.set(R[0], R[1], R[2], 0, R[3], R[4], R[5], 0, R[6], R[7], R[8], 0, 0, 0, 0, 1);
            q.setFromRotationMatrix(M);
            if (k > 0) { // the sign nearest the last frame's, so that slerp takes the short way
                prev.fromArray(quat, ((k - 1) * nbody + b) * 4);
                if (q.dot(prev) < 0) q.set(-q.x, -q.y, -q.z, -q.w);
            }
            q.toArray(quat, (k * nbody + b) * 4);
            pos.set(row.slice(o, o + 3), (k * nbody + b) * 3);
        }
    }
    return { pos, quat, nf };
}

// the frame interval holding t: index k and fraction a (t = (1 - a) t_k + a t_k+1)
function frameAt(ts, t) {
    const n = ts.length;
    if (n === 1 || t <= ts[0]) return [0, 0];
    if (t >= ts[n - 1]) return [n - 1, 0];
    let lo = 0, hi = n - 1;
    while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (ts[mid] <= t) lo = mid; else hi = mid; }
    const span = ts[hi] - ts[lo];
    return [lo, span > 0 ? (t - ts[lo]) / span : 0];
}

function mix3(p, q, a) {
    return [(1 - a) * p[0] + a * q[0], (1 - a) * p[1] + a * q[1], (1 - a) * p[2] + a * q[2]];
}

// row k of rows moved a of the way to row k + 1
function lerp3(rows, k, a) {
    return mix3(rows[k], rows[Math.min(k + 1, rows.length - 1)], a);
}

function makeFigure(d, m, ghost) {
    const group = new THREE.Group();
    const nbody = d.bodies.length;
    const bodies = [];
    const mats = {};
    const mat = (key) => mats[key] || (mats[key] = ghost
        ? new THREE.MeshStandardMaterial({ color: colours.ghost, transparent: true, opacity: 0.35, depthWrite: false })
        : new THREE.MeshStandardMaterial({ color: colours[key], roughness: 0.7 }));
    for (let b = 0; b < nbody; b++) {
        const g = new THREE.Group();
        g.matrixAutoUpdate = false;
        bodies.push(g);
        group.add(g);
    }
    for (const g of d.geoms) {
        const name = d.bodies[g.body] || '';
        const key = g.body === 0 ? 'trunk' : farSide(name) ? 'far' : 'near';
        bodies[g.body].add(geomMesh(g, mat(key)));
    }
    const tracks = bodyTracks(m, nbody);
    const q0 = new THREE.Quaternion(), q1 = new THREE.Quaternion(), p = new THREE.Vector3(), one = new THREE.Vector3(1, 1, 1);
    function pose(t) {
        const [k, a] = frameAt(m.t, t);
        const k1 = Math.min(k + 1, tracks.nf - 1);
        for (let b = 0; b < nbody; b++) {
            const i0 = k * nbody + b, i1 = k1 * nbody + b;
            q0.fromArray(tracks.quat, i0 * 4);
            q1.fromArray(tracks.quat, i1 * 4);
            q0.slerp(q1, a);
            p.set((1 - a) * tracks.pos[i0 * 3] + a * tracks.pos[i1 * 3],
                  (1 - a) * tracks.pos[i0 * 3 + 1] + a * tracks.pos[i1 * 3 + 1],
                  (1 - a) * tracks.pos[i0 * 3 + 2] + a * tracks.pos[i1 * 3 + 2]);
            bodies[b].matrix.compose(p, q0, one);
            bodies[b].matrixWorldNeedsUpdate = true;
        }
    }
    return { group, pose };
}

function lineOf(points, color, dashed) {
    const geo = new THREE.BufferGeometry().setFromPoints(points.map((p) => new THREE.Vector3(...p)));
    const material = dashed ? new THREE.LineDashedMaterial({ color, dashSize: 0.04, gapSize: 0.03 })
                            : new THREE.LineBasicMaterial({ color });
    const line = new THREE.Line(geo, material);
    if (dashed) line.computeLineDistances();
    return line;
}

function disposeTree(obj) {
    obj.traverse((o) => {
        if (o.geometry) o.geometry.dispose();
        if (o.material) [].concat(o.material).forEach((mm) => mm.dispose());
    });
}

// the world of data d: floor, bars, boxes, the character, the ghost, forces, centre of mass
function buildWorld(d) {
    if (world) { scene.remove(world.root); disposeTree(world.root); }
    const root = new THREE.Group();
    const m = d.motion;
    // the character's size (its bodies' origins at the start) and the motion's extent (every
    // body's origin over the motion) frame the camera and scale the force arrows
    const box = (rows) => {
        const lo3 = [Infinity, Infinity, Infinity], hi3 = [-Infinity, -Infinity, -Infinity];
        for (const row of rows) {
            for (let b = 0; 12 * b < row.length; b++) {
                for (let i = 0; i < 3; i++) {
                    lo3[i] = Math.min(lo3[i], row[12 * b + i]);
                    hi3[i] = Math.max(hi3[i], row[12 * b + i]);
                }
            }
        }
        return [lo3, hi3];
    };
    const [blo, bhi] = box(m.bodies);
    const [flo, fhi] = box([m.bodies[0]]);
    const size = Math.max(Math.hypot(fhi[0] - flo[0], fhi[1] - flo[1], fhi[2] - flo[2]), 0.3);
    // the floor: a grid at z = 0 around where the motion goes
    const lo = [Infinity, Infinity], hi = [-Infinity, -Infinity];
    for (const c of m.com.concat(m.root)) {
        for (let i = 0; i < 2; i++) { lo[i] = Math.min(lo[i], c[i]); hi[i] = Math.max(hi[i], c[i]); }
    }
    const span = Math.max(hi[0] - lo[0], hi[1] - lo[1], 2) + 3;
    const centre = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2];
    const n = Math.ceil(span) * 2;
    const grid = new THREE.GridHelper(n / 2, n, 0x8a949e, 0xb9c1c9);
    grid.rotation.x = Math.PI / 2;
    grid.position.set(Math.round(centre[0]), Math.round(centre[1]), 0);
    root.add(grid);
    const floor = new THREE.Mesh(new THREE.PlaneGeometry(n / 2, n / 2),
                                 new THREE.MeshStandardMaterial({ color: 0xcfd5dc, roughness: 1 }));
    floor.position.set(grid.position.x, grid.position.y, -0.001);
    root.add(floor);
    // bars held and bars to clear
    const bars = [];
    for (const ph of d.phases) if (ph.kind === 'bar') bars.push({ point: ph.barPoint, axis: ph.barAxis, radius: 0.014 });
    for (const b of d.bars) bars.push({ point: b.point, axis: b.axis, radius: Math.max(b.radius, 0.01) });
    const barMat = new THREE.MeshStandardMaterial({ color: colours.bar, metalness: 0.6, roughness: 0.3 });
    for (const b of bars) {
        const cyl = new THREE.Mesh(new THREE.CylinderGeometry(b.radius, b.radius, 2.4, 16), barMat);
        cyl.position.set(...b.point);
        cyl.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), new THREE.Vector3(...b.axis).normalize());
        root.add(cyl);
    }
    // boxes (obstacles, raised ground), turned by their yaw about z
    for (const bx of d.boxes) {
        const dims = [0, 1, 2].map((i) => bx.hi[i] - bx.lo[i]);
        const mesh = new THREE.Mesh(new THREE.BoxGeometry(...dims),
                                    new THREE.MeshStandardMaterial({ color: colours.box, roughness: 0.9 }));
        mesh.position.set(...[0, 1, 2].map((i) => (bx.hi[i] + bx.lo[i]) / 2));
        mesh.rotation.z = bx.yaw || 0;
        root.add(mesh);
    }
    // raised ground planes of ground phases (a ground contact at a height, not on a box)
    for (const ph of d.phases) {
        if (ph.kind !== 'ground' || !ph.plane || (Math.abs(ph.height) < 1e-9 && ph.normal[2] > 1 - 1e-9)) continue;
        const k = frameAt(m.t, ph.start)[0];
        const sites = ph.sites.map((s) => m.sites[k][d.contactSites.indexOf(s)]).filter(Boolean);
        if (!sites.length) continue;
        const c = [0, 1].map((i) => sites.reduce((s, x) => s + x[i], 0) / sites.length);
        const plate = new THREE.Mesh(new THREE.PlaneGeometry(1.2 * size, 1.2 * size),
                                     new THREE.MeshStandardMaterial({ color: 0xc8b79a, side: THREE.DoubleSide, transparent: true, opacity: 0.8 }));
        const nrm = new THREE.Vector3(...ph.normal).normalize();
        plate.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), nrm);
        const h = ph.height - nrm.x * c[0] - nrm.y * c[1]; // on the plane n.x = height
        plate.position.set(c[0], c[1], nrm.z !== 0 ? h / nrm.z : 0);
        root.add(plate);
    }
    const figure = makeFigure(d, m, false);
    root.add(figure.group);
    const ghost = d.compare ? makeFigure(d, d.compare, true) : null;
    if (ghost) root.add(ghost.group);
    // the centre of mass: a marker and its path
    const comGroup = new THREE.Group();
    const comDot = new THREE.Mesh(new THREE.SphereGeometry(0.035, 16, 12),
                                  new THREE.MeshBasicMaterial({ color: colours.com }));
    comGroup.add(comDot, lineOf(m.com, 0x333333, true));
    root.add(comGroup);
    // contact sites of the phase at hand, force arrows at the contact links
    const siteMat = new THREE.MeshBasicMaterial({ color: colours.site });
    const siteDots = d.contactSites.map(() => {
        const s = new THREE.Mesh(new THREE.SphereGeometry(0.022, 12, 8), siteMat);
        root.add(s);
        return s;
    });
    const arrows = [];
    for (let i = 0; i < 8; i++) {
        const a = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, colours.force, 0.08, 0.05);
        a.visible = false;
        root.add(a);
        arrows.push(a);
    }
    const weight = d.mass * Math.hypot(...d.gravity) || 1;
    // markers to the character's scale (a 1.8 m humanoid's: a 3.5 cm centre of mass)
    for (const dot of [comDot, ...siteDots]) dot.scale.setScalar(Math.min(size / 1.8, 1.5));
    scene.add(root);
    world = { root, figure, ghost, comGroup, comDot, siteDots, arrows, weight, size,
              extent: Math.max(bhi[0] - blo[0], bhi[1] - blo[1], bhi[2] - Math.min(blo[2], 0)) + 0.6 * size };
}

function phaseAt(d, t) {
    const ph = d.phases;
    for (let i = 0; i < ph.length; i++) if (t < ph[i].end || i === ph.length - 1) return i;
    return -1;
}

// everything in the scene at time t
function showTime(t) {
    const d = data, m = d.motion;
    view.t = Math.min(Math.max(t, 0), d.duration);
    world.figure.pose(view.t);
    if (world.ghost) {
        world.ghost.pose(Math.min(view.t, d.compare.t[d.compare.t.length - 1]));
        world.ghost.group.visible = $('show-compare').checked;
    }
    const [k, a] = frameAt(m.t, view.t);
    const com = lerp3(m.com, k, a);
    world.comDot.position.set(...com);
    world.comGroup.visible = $('show-com').checked;
    const i = phaseAt(d, view.t);
    const active = i >= 0 ? d.phases[i].sites : [];
    const k1 = Math.min(k + 1, m.t.length - 1);
    d.contactSites.forEach((s, j) => {
        world.siteDots[j].visible = active.includes(s);
        if (world.siteDots[j].visible) world.siteDots[j].position.set(...mix3(m.sites[k][j], m.sites[k1][j], a));
    });
    // the nearer frame's forces: a body weight as long as half the character's size
    const forces = m.forces[a < 0.5 ? k : k1] || [];
    const showForces = $('show-forces').checked;
    world.arrows.forEach((arrow, j) => {
        const f = forces[j];
        arrow.visible = !!f && showForces;
        if (!arrow.visible) return;
        const v = scratch.set(f[3], f[4], f[5]);
        const len = (0.5 * world.size * v.length()) / world.weight; // a weight: half the character's size
        if (len < 1e-4) { arrow.visible = false; return; }
        arrow.position.set(f[0], f[1], f[2]);
        arrow.setDirection(v.normalize());
        arrow.setLength(len, Math.min(0.15 * world.size, 0.3 * len), Math.min(0.08 * world.size, 0.18 * len));
    });
    if (view.follow) view.orbit.target.set(com[0], com[1], com[2]);
    placeCamera();
    $('clock').textContent = `t = ${view.t.toFixed(3)} s / ${d.duration.toFixed(3)} s`;
    $('phase').textContent = i >= 0 ? `phase ${d.phases[i].name} (${d.phases[i].kind})` : '';
    $('scrub').value = view.t;
    for (const p of plots) p.cursor();
    renderer.render(scene, camera);
}

// ---- the camera: orbiting its target (drag), distance (wheel), presets ----

function placeCamera() {
    const o = view.orbit;
    camera.position.set(o.target.x + o.r * Math.cos(o.el) * Math.cos(o.az),
                        o.target.y + o.r * Math.cos(o.el) * Math.sin(o.az),
                        o.target.z + o.r * Math.sin(o.el));
    camera.lookAt(o.target);
}

function preset(name) {
    const o = view.orbit;
    if (name === 'side') { o.az = -Math.PI / 2; o.el = 0.12; }        // from -y: x to the right
    else if (name === 'front') { o.az = 0; o.el = 0.12; }              // from +x: y to the right
    else { o.az = -Math.PI / 2; o.el = Math.PI / 2 - 1e-3; }           // from above: x right, y up
    showTime(view.t);
}

let drag = null;
canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY }; canvas.setPointerCapture(e.pointerId); });
canvas.addEventListener('pointerup', () => { drag = null; });
canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const o = view.orbit;
    o.az -= (e.clientX - drag.x) * 0.008;
    o.el = Math.min(Math.max(o.el + (e.clientY - drag.y) * 0.008, -0.2), Math.PI / 2 - 1e-3);
    drag = { x: e.clientX, y: e.clientY };
    showTime(view.t);
});
canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    view.orbit.r = Math.min(Math.max(view.orbit.r * Math.exp(e.deltaY * 0.001), 0.5), 60);
    showTime(view.t);
}, { passive: false });

function resize() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
    for (const p of plots) p.resize();
    if (data) showTime(view.t);
}
window.addEventListener('resize', resize);

// ---- plots: joint angles, joint torques, aggregate force, residuals over thresholds ----

let plots = [];
const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
                 '#7f7f7f', '#bcbd22', '#17becf'];

function makePlot(el, title, series, unit, log) {
    const box = document.createElement('div');
    box.className = 'plot';
    el.appendChild(box);
    const xs = series.t;
    const ys = series.series.map((s) => (log ? s.map((v) => (v === null ? null : Math.max(v, 1e-6))) : s));
    const cols = [xs, ...ys];
    const defs = [{ label: 't (s)' }, ...series.names.map((n, i) => ({
        label: n, stroke: palette[i % palette.length], width: 1.2, points: { show: false } }))];
    if (log) {
        cols.push(xs.map(() => 1));
        defs.push({ label: 'threshold', stroke: '#d22', dash: [6, 4], width: 1.5, points: { show: false } });
    }
    const opts = {
        title, width: Math.max(box.clientWidth - 8, 300), height: 220,
        scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
        axes: [{ label: 'time (s)' }, { label: unit }],
        series: defs,
        cursor: { drag: { x: false, y: false } },
        legend: { live: false },
    };
    const u = new uPlot(opts, cols, box);
    const line = document.createElement('div');
    line.className = 'cursor';
    u.over.appendChild(line);
    u.over.addEventListener('click', (e) => { view.playing = false; syncPlay(); showTime(u.posToVal(e.offsetX, 'x')); });
    return {
        name: title, u, nseries: defs.length - 1,
        cursor() { line.style.left = `${u.valToPos(view.t, 'x')}px`; },
        resize() { u.setSize({ width: Math.max(box.clientWidth - 8, 300), height: 220 }); },
    };
}

function buildPlots(d) {
    for (const p of plots) p.u.destroy();
    plots = [];
    const el = $('plots');
    el.innerHTML = '';
    const P = d.plots;
    if (!P) return;
    plots.push(makePlot(el, 'joint angles', P.angles, P.angles.unit));
    plots.push(makePlot(el, 'joint torques (validation)', P.torques, P.torques.unit));
    plots.push(makePlot(el, 'aggregate contact force f0', P.forces, P.forces.unit));
    plots.push(makePlot(el, 'validation residuals', P.residuals, P.residuals.unit, true));
    const rows = P.checks.map((c) => `<tr class="${c.pass ? '' : 'fail'}"><td>${esc(c.phase)}</td><td>${esc(c.name)}</td>` +
        `<td>${fmt(c.worst)} ${esc(c.unit)}</td><td>at ${fmt(c.time)} s</td><td>threshold ${fmt(c.threshold)}</td>` +
        `<td>${c.judged ? (c.pass ? 'pass' : 'FAIL') : 'shown'}</td></tr>`);
    $('checks').innerHTML = '<tr><th>phase</th><th>check</th><th>worst</th><th></th><th></th><th></th></tr>' + rows.join('');
    $('verdict').textContent = `${P.passed} of ${P.judged} checks pass: ${P.verdict}`;
    $('verdict').className = P.passed === P.judged ? 'pass' : 'fail';
}

function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]); }
function fmt(x) { return x === null ? '-' : Math.abs(x) >= 1e4 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(2) : x.toPrecision(3); }

// ---- the timeline and playback ----

function buildTimeline(d) {
    const bands = $('bands');
    bands.innerHTML = '';
    for (const ph of d.phases) {
        const b = document.createElement('div');
        b.className = ph.kind;
        b.style.left = `${(100 * ph.start) / d.duration}%`;
        b.style.width = `${(100 * (ph.end - ph.start)) / d.duration}%`;
        b.textContent = ph.name;
        b.title = `${ph.name} (${ph.kind}): ${ph.start.toFixed(3)} to ${ph.end.toFixed(3)} s`;
        bands.appendChild(b);
    }
    $('scrub').max = d.duration;
    const css = (c) => `#${c.toString(16).padStart(6, '0')}`;
    const legend = [`<i style="background:${css(colours.near)}"></i>${esc(d.motion.label)}`];
    if (d.compare) legend.push(`<i style="background:${css(colours.ghost)};opacity:.6"></i>${esc(d.compare.label)}`);
    $('legend').innerHTML = legend.join('');
    $('show-compare').parentElement.hidden = !d.compare;
}

function syncPlay() { $('play').textContent = view.playing ? 'Pause' : 'Play'; }

function step(dir) {
    const ts = data.motion.t;
    // the frame at or before t: back to the one before when t is on it, else on to the next
    let [k] = frameAt(ts, view.t + 1e-9);
    if (dir > 0) k += 1;
    else if (Math.abs(ts[k] - view.t) < 1e-9) k -= 1;
    view.playing = false;
    syncPlay();
    showTime(ts[Math.min(Math.max(k, 0), ts.length - 1)]);
}

$('play').onclick = () => { view.playing = !view.playing; if (view.playing && view.t >= data.duration) view.t = 0; syncPlay(); };
$('prev').onclick = () => step(-1);
$('next').onclick = () => step(1);
$('speed').onchange = (e) => { view.speed = Number(e.target.value); };
$('scrub').oninput = (e) => { view.playing = false; syncPlay(); showTime(Number(e.target.value)); };
for (const id of ['show-forces', 'show-com', 'show-compare']) $(id).onchange = () => showTime(view.t);
$('follow').onchange = (e) => { view.follow = e.target.checked; showTime(view.t); };
for (const b of document.querySelectorAll('#view-buttons button')) b.onclick = () => preset(b.dataset.view);
window.addEventListener('keydown', (e) => {
    if (!data || e.target.tagName === 'SELECT') return;
    if (e.key === 'ArrowRight') { step(1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { step(-1); e.preventDefault(); }
    else if (e.key === ' ') { $('play').click(); e.preventDefault(); }
});

function tick(now) {
    // (at most 0.1 s a frame: after a stall, a hidden tab or a busy machine, play goes on where
    // it was rather than jumping, or looping back to the start)
    const dt = view.last ? Math.min((now - view.last) / 1000, 0.1) : 0;
    view.last = now;
    if (data && view.playing) {
        let t = view.t + dt * view.speed;
        if (t > data.duration) t = 0; // loop
        showTime(t);
    }
    requestAnimationFrame(tick);
}

// ---- loading a motion (at start, or each time salto watch sends one) ----

let loads = 0;
function load(d) {
    data = d;
    $('error').hidden = true;
    $('stage').classList.remove('stale');
    buildWorld(d);
    buildTimeline(d);
    buildPlots(d);
    // the first motion framed whole: its extent in a 40 deg field of view, with a margin
    // from the side and a little ahead and above, so that a bar or a twist shows its depth
    if (loads === 0) {
        view.orbit.r = Math.min(Math.max(1.6 * world.extent / (2 * Math.tan(Math.PI / 9)), 1), 60);
        view.orbit.az = -Math.PI / 2 + 0.45;
        view.orbit.el = 0.2;
    }
    loads++;
    resize();
    showTime(Math.min(view.t, d.duration));
}

function showError(text) {
    $('error').textContent = text;
    $('error').hidden = false;
    $('stage').classList.add('stale');
}

// ---- what the tests (and scripts) can ask ----

window.saltoView = {
    ready: false,
    loads: () => loads,
    duration: () => (data ? data.duration : null),
    time: () => view.t,
    setTime: (t) => { view.playing = false; syncPlay(); showTime(t); return view.t; },
    // the root's origin as drawn at the current time
    root: () => { const [k, a] = frameAt(data.motion.t, view.t); return lerp3(data.motion.root, k, a); },
    frameTimes: () => data.motion.t.slice(),
    plots: () => Object.fromEntries(plots.map((p) => [p.name, p.nseries])),
    error: () => ($('error').hidden ? null : $('error').textContent),
    status: () => $('status').textContent,
    view: (name) => preset(name),
};

const embedded = $('salto-data').textContent.trim();
if (embedded) {
    load(JSON.parse(embedded));
} else {
    // salto watch: the server's events carry the motions, errors and progress
    $('status').textContent = 'waiting for the first solve';
    const events = new EventSource('events');
    events.addEventListener('motion', (e) => { load(JSON.parse(e.data)); });
    events.addEventListener('failed', (e) => { showError(e.data); });
    events.addEventListener('progress', (e) => { $('status').textContent = e.data; });
}
resize();
requestAnimationFrame(tick);
window.saltoView.ready = true;
