#!/usr/bin/env bash
# Image references follow the code (docs/deploy-docker.md, "Names and
# tags"): every reference in every generated file is REGISTRY/NAME:TAG,
# never `latest`; rebuilding unchanged sources gives the same tags, and
# editing one file changes exactly the tags of the images that hold it.
# Then: the docker/<id>/ folder of an image whose options changed is
# removed by the next build (and nothing pipec did not write), and the
# default CUDA image is the pinned one that docs/deploy-docker.md names.
#
#   docker_tags.sh PIPEC REPO_ROOT WORK_DIR
#
# The pipeline file has two pipelines: `main` runs prep (C) in the default
# Debian image and train (a Python command step) in an image of its own with
# a requirements file; `other` runs prep and report (C). Every image holds
# the bundle's whole executable, which embeds each step's code digest, so
# editing a step's source changes every tag of the bundles whose pipeline
# runs that step, and none of the other bundle's; the requirements file is
# in train's image only.
set -u
pipec=$(realpath "$1")
root=$2
work=$3/docker-tags
rm -rf "$work"
mkdir -p "$work/src"
status=0
fail() {
    echo "FAIL: $*"
    status=1
}

cd "$work/src" || exit 1
echo 'int prep(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }' >prep.c
echo 'int report(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }' >report.c
echo 'print("training")' >train.py
echo 'numpy==1.26.4' >train-requirements.txt
write_pipe() { # APT_PACKAGE
    cat >tags.pipe <<EOF
step prep() -> data: blob {
    source = "prep.c"
}

@docker(apt_packages = ["$1"], requirements_file = "train-requirements.txt")
step train(data: blob) {
    source  = ["train.py"]
    command = ["python3", "train.py", "{data}"]
}

step report(data: blob) {
    source = "report.c"
}

pipeline main() {
    data = prep()
    train(data = data)
}

pipeline other() {
    data = prep()
    report(data = data)
}
EOF
}
write_pipe libgomp1

build() { # PIPELINE [ARGS...]
    local p=$1
    shift
    if ! "$pipec" build tags.pipe --pipeline "$p" -o "$work/$p" "$@" >"$work/build-$p.log" 2>&1; then
        cat "$work/build-$p.log"
        fail "pipec build --pipeline $p $*"
    fi
}

# refs PIPELINE: "NAME:TAG" of each image, sorted, from docker/build.sh; and
# every image reference of every file must be one of them.
refs() {
    local out=$work/$1
    # shellcheck disable=SC2016 # the script's text
    sed -n 's|^image docker/[^ ]*/Dockerfile "\$PIPE_REGISTRY/\(.*\)"$|\1|p' "$out/docker/build.sh" | LC_ALL=C sort
}
check_files() { # PIPELINE
    local out=$work/$1 known used
    known=$(refs "$1")
    [ -n "$known" ] || fail "$1: no image in docker/build.sh"
    used=$(grep -rhoE 'PIPE_REGISTRY/[a-z0-9][-a-z0-9_.]*:[A-Za-z0-9_.-]+' "$out/kubernetes" "$out/skypilot" |
        sed 's|^PIPE_REGISTRY/||' | LC_ALL=C sort -u)
    [ -n "$used" ] || fail "$1: no image reference in kubernetes/ or skypilot/"
    local extra
    extra=$(LC_ALL=C comm -13 <(echo "$known") <(echo "$used"))
    [ -z "$extra" ] || fail "$1: files name images that docker/build.sh does not build: $extra"
    if grep -rIl ':latest' "$out" --exclude-dir=runtime --exclude-dir=user; then
        fail "$1: a generated file names a :latest image (above)"
    fi
    if ! grep -qE '^[a-z0-9-]+:[0-9a-f]{16}$' <<<"$known"; then
        fail "$1: references are not NAME:16-hex-digits: $known"
    fi
}
# The id of train's image: the one whose Dockerfile copies a requirements file.
train_id() {
    grep -l '^COPY docker/.*/requirements.txt ' "$work"/main/docker/*/Dockerfile | head -1 | xargs dirname |
        xargs basename
}

build main --target all
build other --target all
check_files main
check_files other
main0=$(refs main)
other0=$(refs other)
[ "$(echo "$main0" | wc -l)" = 2 ] || fail "main has two images, found: $main0"
[ "$(echo "$other0" | wc -l)" = 1 ] || fail "other has one image, found: $other0"
folders0=$(cd "$work/main/docker" && ls -d -- */)

# expect WHAT MAIN_CHANGED OTHER_CHANGED: after an edit, which images of
# each bundle got a new tag (a list of name prefixes, or "all" or "none").
expect() {
    local what=$1 want_main=$2 want_other=$3
    build main --target all
    build other --target all
    check_files main
    check_files other
    local main1 other1
    main1=$(refs main)
    other1=$(refs other)
    for side in main other; do
        local before after want changed
        if [ $side = main ]; then before=$main0 after=$main1 want=$want_main; else before=$other0 after=$other1 want=$want_other; fi
        # Names stay; tags change where the image holds what was edited.
        if [ "$(cut -d: -f1 <<<"$before")" != "$(cut -d: -f1 <<<"$after")" ]; then
            fail "$what: the image names of $side changed: $before -> $after"
        fi
        changed=$(LC_ALL=C comm -13 <(echo "$before") <(echo "$after") | cut -d: -f1 | tr '\n' ' ')
        changed=${changed% }
        case $want in
        all) [ "$(wc -l <<<"$before")" = "$(wc -w <<<"$changed")" ] ;;
        none) [ -z "$changed" ] ;;
        *) [ "$(wc -w <<<"$changed")" = 1 ] && [ "${changed#"$want"}" != "$changed" ] ;;
        esac || {
            fail "$what: $side's images with a new tag: '${changed}', expected $want"
            continue
        }
        echo "ok   $what: $side: ${changed:-no image} has a new tag (expected: $want)"
    done
    main0=$main1
    other0=$other1
}

expect "the same sources again" none none
echo 'print("training, edited")' >train.py
expect "train.py edited (a step of main only)" all none
echo 'numpy==2.0.0' >train-requirements.txt
expect "train's requirements file edited (in train's image only)" "main-$(train_id)" none
echo 'int report(void *ctx, const void *args) { (void)ctx; (void)args; return 1; }' >report.c
expect "report.c edited (a step of other only)" none all
echo 'int prep(void *ctx, const void *args) { (void)ctx; (void)args; return 1; }' >prep.c
expect "prep.c edited (a step of both)" all all
[ "$(cd "$work/main/docker" && ls -d -- */)" = "$folders0" ] || fail "code edits changed the docker/ folders"

# --- a stale docker/<id>/ folder ----------------------------------------
old_id=$(train_id)
[ -f "$work/main/docker/$old_id/requirements.txt" ] || fail "no requirements.txt in train's docker/$old_id/"
echo "mine" >"$work/main/docker/notes.txt"
mkdir -p "$work/main/docker/mine"
echo "FROM debian" >"$work/main/docker/mine/Dockerfile"
write_pipe curl
build main --target all
if [ -e "$work/main/docker/$old_id" ]; then
    fail "docker/$old_id/ (train's image before apt_packages changed) is still there"
else
    echo "ok   docker/$old_id/ of the previous build is removed"
fi
new_id=$(train_id)
if [ -z "$new_id" ] || [ "$new_id" = "$old_id" ] || [ ! -f "$work/main/docker/$new_id/requirements.txt" ]; then
    fail "no new docker/<id>/ with its requirements.txt for train ($new_id)"
fi
if [ ! -f "$work/main/docker/notes.txt" ] || [ ! -f "$work/main/docker/mine/Dockerfile" ]; then
    fail "files pipec did not write were removed"
fi
check_files main
# A build of fewer targets keeps the others' files.
build main --target local
if [ ! -f "$work/main/docker/build.sh" ] || [ ! -d "$work/main/docker/$new_id" ] || [ ! -d "$work/main/kubernetes" ]; then
    fail "--target local removed the files of targets it did not build"
fi
build main --target all
[ -f "$work/main/docker/build.sh" ] || fail "docker/build.sh is gone after --target all"
[ $status = 0 ] && echo "ok   stale folders removed, other files kept"

# --- the default CUDA image ---------------------------------------------
cat >gpu.pipe <<'EOF'
@resources(gpu = 1)
step g() {
    source = "prep.c"
    entry  = "prep"
}

pipeline gpu() {
    g()
}
EOF
# shellcheck disable=SC2016 # Markdown's backquotes
pinned=$(sed -n 's/.*default CUDA image is `nvidia\/cuda:\([0-9.]*\)-runtime-ubuntu22.04`.*/\1/p' \
    "$root/docs/deploy-docker.md" | head -1)
[ -n "$pinned" ] || fail "docs/deploy-docker.md does not name the default CUDA image"
env -u PIPEC_CUDA_VERSION "$pipec" build gpu.pipe -o "$work/gpu" --target docker >"$work/gpu.log" 2>&1 ||
    { cat "$work/gpu.log"; fail "pipec build gpu.pipe"; }
from=$(grep -h '^FROM nvidia/cuda' "$work"/gpu/docker/*/Dockerfile | tr '\n' ' ')
if [ "$from" = "FROM nvidia/cuda:$pinned-devel-ubuntu22.04 AS build FROM nvidia/cuda:$pinned-runtime-ubuntu22.04 " ]; then
    echo "ok   the default CUDA image is the pinned $pinned, whatever toolkit built pipec"
else
    fail "the default CUDA image is not the documented $pinned: $from"
fi
PIPEC_CUDA_VERSION=12.8.0 "$pipec" build gpu.pipe -o "$work/gpu" --target docker >"$work/gpu.log" 2>&1
grep -q '^FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04$' "$work"/gpu/docker/*/Dockerfile ||
    fail "PIPEC_CUDA_VERSION=12.8.0 does not choose nvidia/cuda:12.8.0"

[ $status = 0 ] && echo "docker tags: ok"
exit $status
