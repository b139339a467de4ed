#!/usr/bin/env bash
# Hostile and huge inputs: pipec answers each with diagnostics or a clear
# error and the documented exit status: never a crash, hang or leak (the
# ASan build runs this too).
set -u
pipec=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

# expect NAME STATUS PATTERN -- ARGS...: runs pipec with a time limit.
expect() {
    local name=$1 want=$2 pattern=$3
    shift 4
    timeout 120 "$pipec" "$@" >"$work/$name.out" 2>&1
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL $name: exit $got, expected $want"
        head -c 600 "$work/$name.out"
        failed=$((failed + 1))
    elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$work/$name.out"; then
        echo "FAIL $name: output lacks '$pattern'"
        head -c 600 "$work/$name.out"
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}

gen() { python3 -c "$1" > "$work/$2"; }

gen 'import random, sys; r = random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(1 << 20)))' garbage.pipe
expect garbage 1 "error\[E0001\]" -- check "$work/garbage.pipe"
expect garbage_json 1 '"code":"E00' -- check "$work/garbage.pipe" --diagnostics-format=json
expect garbage_sarif 1 '"version":"2.1.0"' -- check "$work/garbage.pipe" --diagnostics-format=sarif

printf 'int main() { return 0; }\n' > "$work/a.c"
gen 'print("# " + "x" * 10_000_000); print("step s() { source = \"a.c\" }"); print("pipeline p() { s() }")' long_comment.pipe
expect long_comment 0 "" -- check "$work/long_comment.pipe"
gen 'print("step s() { source = \"" + "y" * 10_000_000 + ".c\" }")' long_string.pipe
expect long_string 1 "error\[E0116\]" -- check "$work/long_string.pipe"
gen 'print("step s() { source = " + "[" * 100_000 + "]" * 100_000 + " }")' deep_list.pipe
expect deep_list 1 "error\[E0121\]" -- check "$work/deep_list.pipe"
gen 'print("pipeline p() { x = f(" + "g(" * 50_000 + ")" * 50_001 + " }")' deep_calls.pipe
expect deep_calls 1 "error\[E0121\]" -- check "$work/deep_calls.pipe"

gen '
n = 100_000
for i in range(n):
    print(f"step s{i}(x: int = {i}) -> o: blob {{ source = \"a.c\" }}")
print("step sink(d: blob) { source = \"a.c\" }")
print("pipeline p() {")
for i in range(n):
    print(f"    o{i} = s{i}(x = {i})")
for i in range(n):
    print(f"    sink(d = o{i})")
print("}")' many_steps.pipe
start=$(date +%s)
expect many_steps 0 "" -- check "$work/many_steps.pipe"
elapsed=$(($(date +%s) - start))
if [ "$elapsed" -gt 60 ]; then
    echo "FAIL many_steps: took ${elapsed}s"
    failed=$((failed + 1))
fi

printf 'step s() { source = "a\xff\xfe.c" }\n' > "$work/bad_utf8_string.pipe"
expect bad_utf8_string 1 "not valid UTF-8" -- check "$work/bad_utf8_string.pipe"
printf '# caf\xe9 (Latin-1)\nstep s() { source = "a.c" }\npipeline p() { s() }\n' > "$work/bad_utf8_comment.pipe"
expect bad_utf8_comment 0 "" -- check "$work/bad_utf8_comment.pipe"
printf 'step s() {\0 source = "a.c" }\n' > "$work/nul.pipe"
expect nul 1 "error\[E0001\]" -- check "$work/nul.pipe"
: > "$work/empty.pipe"
expect empty_check 0 "" -- check "$work/empty.pipe"
expect empty_build 1 "error\[E0114\]" -- build "$work/empty.pipe" -o "$work/out"

expect missing 2 "cannot read" -- check "$work/does-not-exist.pipe"
expect directory 2 "is a directory" -- check "$work"
expect usage 2 "unknown command" -- frobnicate
expect no_file 2 "needs a .pipe file" -- check
if [ "$(id -u)" != 0 ]; then
    printf 'step s() { source = "a.c" }\n' > "$work/locked.pipe"
    chmod 000 "$work/locked.pipe"
    expect unreadable 2 "cannot read" -- check "$work/locked.pipe"
fi
printf 'import "%s"\n' "$work" > "$work/imports_dir.pipe"
expect import_directory 1 "error\[E0111\]" -- check "$work/imports_dir.pipe"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
