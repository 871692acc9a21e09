#!/bin/sh
# view_cli_test.sh: salto view and salto watch driven from the command line: their outputs, and
# every bad input (a message at its file:line:col or naming the option, exit status 2, no page
# written); their pages in a browser are tests/browser/browser_test.mjs's
# usage: view_cli_test.sh SALTO ROOT
. "$(dirname "$0")/shell_lib.sh" # reads $1 (salto) and $2 (the root)

for cmd in view watch; do
    expect 0 "$salto" $cmd --help
    grep_in "$tmp/out" "usage: salto $cmd"
done
expect 2 "$salto" view
grep_in "$tmp/err" "usage: salto view"
expect 2 "$salto" watch
grep_in "$tmp/err" "usage: salto watch"

# a motion to view: the lamp's hop (half a second), played back too
sed "s#^character: .*#character: $root/data/characters/luxo.yaml#" "$root/problems/luxo_jump.yaml" >"$tmp/luxo.yaml"
"$salto" solve "$tmp/luxo.yaml" -o "$tmp/luxo" --quiet >/dev/null 2>&1
[ -f "$tmp/luxo/motion.json" ] && ok || fail "no motion solved"
expect 0 "$salto" view "$tmp/luxo/motion.json"
grep_in "$tmp/out" "wrote $tmp/luxo/view.html \([0-9.]+ MB\)"
grep_in "$tmp/luxo/view.html" '<script id="salto-data" type="application/json">\{"format":"salto view 1"'
"$salto" play "$tmp/luxo/motion.json" --quiet >/dev/null 2>&1
expect 0 "$salto" view "$tmp/luxo/motion.json" -o "$tmp/ghost.html"
grep_in "$tmp/out" "the ghost: $tmp/luxo/play/sim.json"
grep_in "$tmp/ghost.html" '"compare":\{"label":"salto play"'
expect 0 "$salto" view "$tmp/luxo/motion.json" --no-play -o "$tmp/alone.html"
if grep -q '"compare":' "$tmp/alone.html"; then fail "--no-play drew the play result"; else ok; fi
# a broken play result found beside the motion (not asked for): a warning, the page without it
mkdir -p "$tmp/stale/play"
cp "$tmp/luxo/motion.json" "$tmp/stale/motion.json"
printf '{"dofs": ["root_x"]}\n' >"$tmp/stale/play/sim.json"
expect 0 "$salto" view "$tmp/stale/motion.json"
grep_in "$tmp/err" "warning: the play result '.*stale/play/sim.json' is left out"
if grep -q '"compare":' "$tmp/stale/view.html"; then fail "a broken play result drawn"; else ok; fi
# a ghost named outright: the play's folder, or another motion of the character
expect 0 "$salto" view "$tmp/luxo/motion.json" --compare "$tmp/luxo/play" -o "$tmp/g2.html"
expect 0 "$salto" view "$tmp/luxo/motion.json" --compare "$tmp/luxo/motion.json" -o "$tmp/g3.html"
grep_in "$tmp/g3.html" "\"compare\":\{\"label\":\"$tmp/luxo/motion.json\""
# CSV frames with their problem
expect 0 "$salto" view "$tmp/luxo/motion.csv" --problem "$tmp/luxo.yaml" -o "$tmp/csv.html"

# a motion in a turned root chart (motion.json's root_chart): salto play writes its frames in
# the character's chart in sim.json as in sim.csv, and salto view's ghost (the play result)
# starts in the motion's pose (the fixture's frames are its unturned solve's: the commands read
# its control points)
cp -r "$root/tests/data/view/turned" "$tmp/turned"
cd "$tmp/turned" || exit 2 # the motion names its problem relative to here
expect 0 "$salto" play motion.json --quiet
node -e '
const fs = require("fs");
const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const rows = fs.readFileSync(process.argv[2], "utf8").trim().split("\n").slice(1).map((l) => l.split(",").map(Number));
let worst = 0;
j.frames.q.forEach((q, k) => q.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - rows[k][1 + i])); }));
if (j.frames.q.length !== rows.length || worst > 1e-12) { console.log("sim.json and sim.csv differ by " + worst); process.exit(1); }
' "$tmp/turned/play/sim.json" "$tmp/turned/play/sim.csv" && ok || fail "a turned motion's sim.json is not in sim.csv's chart"
expect 0 "$salto" view motion.json
cd "$root" || exit 2
node -e '
const fs = require("fs");
const html = fs.readFileSync(process.argv[1], "utf8");
const start = html.indexOf("type=\"application/json\">") + 24, end = html.indexOf("</script>", start);
const d = JSON.parse(html.slice(start, end));
const a = d.motion.bodies[0], b = d.compare.bodies[0];
const worst = Math.max(...a.map((v, i) => Math.abs(v - b[i])));
if (worst > 1e-5) { console.log("the ghost starts " + worst + " from the motion"); process.exit(1); }
' "$tmp/turned/view.html" && ok || fail "a turned motion's ghost does not start in its pose"

# ---- bad input: nothing written ----
expect 2 "$salto" view "$tmp/no_such.json" -o "$tmp/bad.html"
grep_in "$tmp/err" "no_such.json"
expect 2 "$salto" view "$tmp/luxo/motion.csv" -o "$tmp/bad.html"
grep_in "$tmp/err" "names no problem"
expect 2 "$salto" view "$tmp/luxo/motion.json" --frobnicate
grep_in "$tmp/err" "frobnicate"
expect 2 "$salto" view "$tmp/luxo/motion.json" --compare "$tmp/nowhere" -o "$tmp/bad.html"
grep_in "$tmp/err" "nowhere"
# another character's motion as the ghost
sed "s#^character: .*#character: $root/data/characters/gymnast7.yaml#" "$root/problems/back_tuck.yaml" >"$tmp/tuck.yaml"
"$salto" solve "$tmp/tuck.yaml" -o "$tmp/tuck" --quiet --set solver.max_iterations=3 >/dev/null 2>&1
expect 2 "$salto" view "$tmp/luxo/motion.json" --compare "$tmp/tuck/motion.json" -o "$tmp/bad.html"
grep_in "$tmp/err" "character 'gymnast7', not 'luxo'"
# broken play results: each message at its file:line:col
mkdir -p "$tmp/sims"
printf '{"dofs": ["root_x"], "frames": {"t": [0], "q": [[0]]}}\n' >"$tmp/sims/dofs.json"
printf '{"dofs": ["root_x", "root_z", "root_ry", "base_joint", "neck", "elbow"],\n "frames": {"t": [0], "q": [[0, 0, 0, 0, 0, 0]]}}\n' >"$tmp/sims/order.json"
printf '{"dofs": ["root_x", "root_z", "root_ry", "base_joint", "elbow", "neck"],\n "frames": {"t": [0, 0.1],\n  "q": [[0, 0, 0, 0, 0, 0]]}}\n' >"$tmp/sims/rows.json"
printf '{"dofs": ["root_x", "root_z", "root_ry", "base_joint", "elbow", "neck"],\n "frames": {"t": [0.1, 0],\n  "q": [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]}}\n' >"$tmp/sims/order_t.json"
printf '{"dofs": ["root_x", "root_z", "root_ry", "base_joint", "elbow", "neck"],\n "frames": {"t": [0],\n  "q": [[0, 0, 0, 0, 0]]}}\n' >"$tmp/sims/short.json"
printf '{"dofs": ["root_x", "root_z", "root_ry", "base_joint", "elbow", "neck"],\n "frames": {"t": [0],\n  "q": [[0, 0, 0, 0, 0, .nan]]}}\n' >"$tmp/sims/nan.json"
printf '{"dofs": ["root_x", "root_z", "root_ry", "base_joint", "elbow", "neck"],\n "frames": {"t": [0],\n  "q": [[0, 0, 0, 0, 0, 1e999]]}}\n' >"$tmp/sims/inf.json"
printf '{"dofs": ["root_x", "root_z", "root_ry", "base_joint", "elbow", "neck"]}\n' >"$tmp/sims/noframes.json"
printf '{"dofs": [1, 2\n' >"$tmp/sims/syntax.json"
for case in "dofs:1:10:.*6" "order:1:56:.*'neck'.*'elbow'" "rows:3:8:.*1 rows.*2 times" "order_t:2:24:.*not decrease" \
            "short:3:9:.*6 numbers" "nan:3:25:.*expected a number" "inf:3:25:.*expected a finite number" "noframes:1:1:.*frames" "syntax:2:1:"; do
    name=${case%%:*}
    where=${case#*:}
    mv "$tmp/sims/$name.json" "$tmp/sims/sim.json"
    expect 2 "$salto" view "$tmp/luxo/motion.json" --compare "$tmp/sims/sim.json" -o "$tmp/bad.html"
    grep_in "$tmp/err" "sims/sim.json:$where"
done
[ -e "$tmp/bad.html" ] && fail "a page was written for bad input" || ok
# the npm packages missing: a message that says how to install them
SALTO_WEB_MODULES="$tmp/none" "$salto" view "$tmp/luxo/motion.json" -o "$tmp/bad.html" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && ok || fail "a missing npm folder: exit not 2"
grep_in "$tmp/err" "scripts/setup.sh"

# npm files the page cannot take: one that would end its script, a three.js module that does not
# import its core as the page expects
mods="$tmp/mods"
mkdir -p "$mods/three/build" "$mods/uplot/dist"
cp "$root/web/node_modules/three/build/three.core.js" "$root/web/node_modules/three/build/three.module.js" "$mods/three/build/"
cp "$root/web/node_modules/uplot/dist/uPlot.iife.min.js" "$root/web/node_modules/uplot/dist/uPlot.min.css" "$mods/uplot/dist/"
printf '\n// </SCRIPT>\n' >>"$mods/uplot/dist/uPlot.iife.min.js"
SALTO_WEB_MODULES="$mods" "$salto" view "$tmp/luxo/motion.json" -o "$tmp/bad.html" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && ok || fail "a library holding </script: exit not 2"
grep_in "$tmp/err" "uPlot.iife.min.js' holds '</script'"
cp "$root/web/node_modules/uplot/dist/uPlot.iife.min.js" "$mods/uplot/dist/"
sed "s#'./three.core.js'#'./three.core.min.js'#g" "$root/web/node_modules/three/build/three.module.js" >"$mods/three/build/three.module.js"
SALTO_WEB_MODULES="$mods" "$salto" view "$tmp/luxo/motion.json" -o "$tmp/bad.html" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && ok || fail "a three.js module of another shape: exit not 2"
grep_in "$tmp/err" "does not import './three.core.js'"
[ -e "$tmp/bad.html" ] && fail "a page was written for unusable libraries" || ok

# ---- salto watch's bad input ----
expect 2 "$salto" watch "$tmp/no_such.yaml" --port 0
grep_in "$tmp/err" "no_such.yaml"
expect 2 "$salto" watch "$tmp/luxo.yaml" --port 70000
grep_in "$tmp/err" "--port must be an integer from 0 to 65535"
expect 2 "$salto" watch "$tmp/luxo.yaml" --host localhost
grep_in "$tmp/err" "--host needs an IPv4 address"
expect 2 "$salto" watch "$tmp/luxo.yaml" --host 192.0.2.1 --port 0
grep_in "$tmp/err" "cannot listen on 192.0.2.1"

echo "view_cli: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
