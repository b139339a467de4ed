#!/usr/bin/env bash
# pipec build, all or nothing: a build that fails half-way (a file name too
# long for the file system, a folder that cannot be written) leaves the
# previous bundle exactly as it was; a build that succeeds rewrites only
# what changed.
set -u
pipec=$1
src=$2
work=$3
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
rm -rf "$work"
mkdir -p "$work"
out="$work/bundle"
snapshot() { # every file with its bytes and mtime, and no stray temporary
    (cd "$out" && find . -type f -printf '%p %T@ ' -exec md5sum {} \; | sort)
}

cp "$src/reliability.pipe" "$work/p.pipe"
cp -r "$src/src" "$work/src"
cp -r "$src/scripts" "$work/scripts"
"$pipec" build "$work/p.pipe" --pipeline crash -o "$out" --target all >"$work/b1.out" 2>&1
check "[ $? = 0 ]" "the first build succeeds"
before=$(snapshot)

# A step whose name makes a file name longer than the file system allows.
long=$(printf 's%.0s' $(seq 300))
sed -e "s/step verify(/step $long(/" -e "s/^    verify(data/    $long(data/" "$work/p.pipe" >"$work/long.pipe"
"$pipec" build "$work/long.pipe" --pipeline crash -o "$out" --target all >"$work/b2.out" 2>&1
status=$?
check "[ $status != 0 ]" "a build with a name too long fails (status $status)"
check "grep -q 'File name too long' '$work/b2.out'" "it says why"
check "[ \"\$(snapshot)\" = '$before' ]" "the previous bundle is as it was"
# The same into a new folder: files there are written in place, and the
# failure takes them and the folder away again.
"$pipec" build "$work/long.pipe" --pipeline crash -o "$work/fresh/bundle" --target all >"$work/b2b.out" 2>&1
status=$?
check "[ $status != 0 ] && grep -q 'File name too long' '$work/b2b.out'" "a first build with a name too long fails (status $status)"
check "[ ! -e '$work/fresh' ]" "and leaves no folder behind ($(find "$work/fresh" 2>/dev/null | head -3 | tr '\n' ' '))"

# A folder that cannot be written: a file where the build needs a folder.
changed="$work/changed.pipe"
sed 's/chunks: int = 40/chunks: int = 41/' "$work/p.pipe" >"$changed"
mv "$out/docker" "$work/docker.saved"
printf 'in the way\n' >"$out/docker"
before=$(snapshot)
"$pipec" build "$changed" --pipeline crash -o "$out" --target all >"$work/b3.out" 2>&1
status=$?
check "[ $status != 0 ]" "a build that cannot write a folder fails (status $status)"
check "[ \"\$(snapshot)\" = '$before' ]" "bundle.yaml and the driver are still the previous ones"
check "grep -q 'chunks' '$out/bundle.yaml' && ! grep -q '\"41\"' '$out/bundle.yaml'" "bundle.yaml is the old one"
rm "$out/docker"
mv "$work/docker.saved" "$out/docker"

# The same change, now writable: only what changed is rewritten.
before=$(snapshot)
"$pipec" build "$changed" --pipeline crash -o "$out" --target all >"$work/b4.out" 2>&1
check "[ $? = 0 ]" "the build succeeds once the folder is back"
check "grep -q '\"41\"' '$out/bundle.yaml'" "bundle.yaml has the change"
unchanged=$(comm -12 <(echo "$before") <(snapshot) | wc -l)
check "[ $unchanged -gt 10 ]" "files whose bytes did not change were left alone ($unchanged)"
check "[ -z \"\$(find '$out' -name '.pipec-*')\" ]" "no temporary file is left"

# Nothing changed: not one file is rewritten (bytes and mtimes as they were).
before=$(snapshot)
sleep 0.01
"$pipec" build "$changed" --pipeline crash -o "$out" --target all >"$work/b5.out" 2>&1
check "[ $? = 0 ] && [ \"\$(snapshot)\" = '$before' ]" "a build with nothing changed rewrites no file"

# --target local generates no deploy target's files.
"$pipec" build "$changed" --pipeline crash -o "$work/local" --target local >"$work/b6.out" 2>&1
check "[ $? = 0 ] && [ -f '$work/local/bundle.yaml' ]" "a local build succeeds"
for d in docker slurm kubernetes skypilot; do
    check "[ ! -e '$work/local/$d' ]" "--target local writes no $d/"
done
if [ "$failed" != 0 ]; then
    for f in "$work"/b*.out; do sed "s/^/    $(basename "$f") | /" "$f" | tail -8; done
fi
finish
