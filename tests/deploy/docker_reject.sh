#!/usr/bin/env bash
# What a Dockerfile cannot hold safely is rejected: `pipec build --target
# docker` fails with a message naming the value, and writes nothing. What it
# can hold reads back exactly: valid image references are accepted as they
# are, and the pip requirements of docker_hello/hello.pipe come out of the
# RUN line's shell one argument each (this part needs no container tools;
# docker_build.sh checks the same in a real build).
#
#   docker_reject.sh PIPEC REPO_ROOT WORK_DIR
# The hostile values below are literal text on purpose:
# shellcheck disable=SC2016
set -u
pipec=$1
root=$2
work=$3/reject
rm -rf "$work"
mkdir -p "$work"
echo 'int s(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }' >"$work/s.c"
status=0

# reject NAME EXPECTED_MESSAGE DOCKER_OPTIONS: the build must fail with the message.
reject() {
    local name=$1 expected=$2 options=$3
    printf '@docker(%s)\nstep s() {\n    source = "s.c"\n}\npipeline p() {\n    s()\n}\n' "$options" \
        >"$work/$name.pipe"
    local out="$work/$name.out"
    if "$pipec" build "$work/$name.pipe" -o "$out" --target docker >"$work/$name.log" 2>&1; then
        echo "FAIL: $name: pipec build succeeded"
        status=1
    elif ! grep -qF -- "$expected" "$work/$name.log"; then
        echo "FAIL: $name: expected a message with: $expected"
        cat "$work/$name.log"
        status=1
    elif [ -e "$out/docker" ]; then
        echo "FAIL: $name: files were written"
        status=1
    else
        echo "ok   $name: $(grep -F -- "$expected" "$work/$name.log" | head -1)"
    fi
}

# FROM has no quoting: image references are checked against their grammar.
reject image_space 'parent_image "debian bookworm" of step `s` is not an image reference' \
    'parent_image = "debian bookworm"'
reject image_subst 'build_image "$(id)" of step `s` is not an image reference' \
    'parent_image = "debian:bookworm", build_image = "$(id)"'
reject image_variable 'parent_image "${BASE}:1" of step `s` is not an image reference' \
    'parent_image = "${BASE}:1"'
reject image_upper 'parent_image "Debian:12" of step `s` is not an image reference' 'parent_image = "Debian:12"'
reject image_tag 'parent_image "debian:-1" of step `s` is not an image reference' 'parent_image = "debian:-1"'
reject image_quote 'parent_image "debian\"" of step `s` is not an image reference' 'parent_image = "debian\""'
reject image_unicode 'parent_image "débian" of step `s` is not an image reference' 'parent_image = "débian"'
# A Dockerfile line cannot hold a newline: ENV values with one are refused.
reject env_newline 'environment variable A of step `s` holds a control character' \
    'environment = {"A": "x\nRUN touch /tmp/pwned"}'
reject env_tab 'environment variable A of step `s` holds a control character' 'environment = {"A": "x\ty"}'
# BuildKit reads a `<<WORD` word in RUN as a here-document, quoted or not.
reject requirement_heredoc 'requirement "<<EOF" of step `s` is not a pip requirement' 'requirements = ["<<EOF"]'
reject index_url_heredoc 'index_url "<<EOF" of step `s` is not a URL' 'requirements = ["numpy"], index_url = "<<EOF"'
reject extra_index_heredoc 'extra_index_urls "<<EOF" of step `s` is not a URL' \
    'requirements = ["numpy"], extra_index_urls = ["https://a.invalid/", "<<EOF"]'

# And what is valid goes through: registries with ports, digests, paths.
ok_image() {
    printf '@docker(parent_image = "%s")\nstep s() {\n    source = "s.c"\n}\npipeline p() {\n    s()\n}\n' "$1" \
        >"$work/ok.pipe"
    if "$pipec" build "$work/ok.pipe" -o "$work/ok.out" --target docker >"$work/ok.log" 2>&1 &&
        grep -q "^FROM $1\$" "$work"/ok.out/docker/*/Dockerfile; then
        echo "ok   accepted $1"
    else
        echo "FAIL: image $1 was not accepted"
        cat "$work/ok.log"
        status=1
    fi
    rm -rf "$work/ok.out"
}
ok_image "debian"
ok_image "localhost/pipec-test:bookworm"
ok_image "registry.example.com:5000/team/ml__base/cuda-12.4:12.4.1-Devel_x"
ok_image "ghcr.io/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
ok_image "nvcr.io/nvidia/pytorch:24.03-py3"

# The RUN words through sh: join the continued lines as Docker does, and
# give the pip command's words to printf instead of pip.
"$pipec" build "$root/tests/deploy/docker_hello/hello.pipe" -o "$work/hello" --target docker >/dev/null 2>&1 ||
    { echo "FAIL: pipec build hello.pipe"; exit 1; }
dockerfile=$(echo "$work"/hello/docker/*/Dockerfile)
words=$(sed -n '/python3 -m pip install/,/; \\$/p' "$dockerfile" | sed 's/\\$//' | tr -d '\n')
words=${words#*pip install --no-cache-dir }
words=${words%; }
cp "$root/tests/deploy/docker_hello/pip-args.txt" "$work/pip-args.expected"
pwned_before=no
[ -e /tmp/pwned ] && pwned_before=yes
if (cd "$work" && sh -c "printf '%s\\n' $words") >"$work/pip-args" &&
    diff -u "$work/pip-args.expected" "$work/pip-args"; then
    echo "ok   requirements read back through sh"
else
    echo "FAIL: pip's arguments as sh reads them differ (above)"
    status=1
fi
if [ "$pwned_before" = no ] && [ -e /tmp/pwned ]; then
    echo "FAIL: /tmp/pwned was created: a requirement ran as a command"
    status=1
fi

exit $status
