#!/bin/sh
# layers.sh ROOT: libsalto's includes point only down the pipeline (docs/design.md, "Layers").
#
# The layers, bottom up, and what each may use. A layer may include its own headers and those
# of the layers it names, and of everything those may use in turn; never anything else. This
# table is the one place the order is written.
LAYERS='
base     :
model    : base
dynamics : model
problem  : dynamics
motion   : problem
validate : motion
sim      : validate
optimise : validate
batch    : optimise
'
# The public headers (lib/include/salto/NAME.h) of each layer. Sources are in the layer's
# folder (lib/src/LAYER/); private headers there are the folder's own (base's are shared:
# its folder is on every source's include path).
HEADERS='
base     : base atomic config spatial budget
model    : character model data export orient
dynamics : kinematics dynamics aggregate obstacle dca
problem  : problem checks
motion   : bspline motion
validate : validate
sim      : sim ragdoll react
optimise : nlp solver
batch    : sweep batch
'
#
# Fails, naming file:line, on an include of a higher or unrelated layer, a public header
# missing from the table, a source outside every layer's folder, or a private header
# included from another folder than its own (or base).
root="${1:-.}"
cd "$root" || exit 2
tab=$(mktemp)
trap 'rm -f "$tab"' EXIT

# tab: one line "layer allowed..." with the allowed layers closed transitively
echo "$LAYERS" | awk -F: '
    NF >= 1 && $1 ~ /[a-z]/ {
        gsub(/ /, "", $1); name[++n] = $1; below[$1] = $2
    }
    END {
        for (i = 1; i <= n; i++) {
            l = name[i]; ok = " " l " "; todo = below[l]
            while (split(todo, w, " ") > 0) {
                todo = ""
                for (k in w) if (index(ok, " " w[k] " ") == 0) { ok = ok w[k] " "; todo = todo " " below[w[k]] }
            }
            print l, ok
        }
    }' >"$tab"

layer_of_header() {
    echo "$HEADERS" | awk -F: -v h="$1" '$1 ~ /[a-z]/ { gsub(/ /, "", $1); n = split($2, w, " ");
        for (k = 1; k <= n; k++) if (w[k] == h) { print $1; exit } }'
}
allowed() { # allowed LAYER TARGET: 0 when LAYER may include TARGET
    grep -q "^$1 .* $2 " "$tab"
}

nbad=0
bad() { nbad=$((nbad + 1)); echo "layers: $*"; }

# every public header belongs to a layer
for h in lib/include/salto/*.h; do
    n=$(basename "$h" .h)
    [ -n "$(layer_of_header "$n")" ] || bad "$h: not in any layer (add it to HEADERS in tests/layers.sh)"
done

check_file() { # check_file FILE LAYER
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1" | while IFS= read -r line; do
        ln=${line%%:*}
        inc=$(echo "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
        case "$inc" in
        salto/*)
            t=$(layer_of_header "$(basename "$inc" .h)")
            if [ -z "$t" ]; then echo "layers: $1:$ln: includes $inc, which is in no layer"
            elif ! allowed "$2" "$t"; then echo "layers: $1:$ln: $2 includes $inc ($t): an upward or sideways include"; fi ;;
        *)
            d=$(dirname "$1")
            [ -f "$d/$inc" ] || [ -f "lib/src/base/$inc" ] ||
                echo "layers: $1:$ln: includes \"$inc\", a private header of another folder" ;;
        esac
    done
}

out=$(
    for h in lib/include/salto/*.h; do
        l=$(layer_of_header "$(basename "$h" .h)")
        [ -n "$l" ] && check_file "$h" "$l"
    done
    for f in lib/src/*/*.c lib/src/*/*.h; do
        l=$(basename "$(dirname "$f")")
        if grep -q "^$l " "$tab"; then check_file "$f" "$l"
        else echo "layers: $f: its folder lib/src/$l is not a layer"; fi
    done
    for f in lib/src/*.c lib/src/*.h; do
        [ -e "$f" ] && echo "layers: $f: outside every layer's folder"
    done
)
[ -n "$out" ] && echo "$out"
n=$(printf '%s' "$out" | grep -c '^layers:')
nbad=$((nbad + n))
nfile=$(ls lib/include/salto/*.h lib/src/*/*.c lib/src/*/*.h | wc -l)
if [ "$nbad" -gt 0 ]; then
    echo "layers: $nbad problems in $nfile files"
    exit 1
fi
echo "layers: $nfile files, every include points down"
