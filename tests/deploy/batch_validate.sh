#!/usr/bin/env bash
# The AWS Batch target (docs/deploy-batch.md), for every pipeline of every
# example (examples/*/*.pipe), every golden case (tests/golden/*), the
# injection corpus (injection/injection.pipe) and the target's own cases
# (batch/cases.pipe: each platform, Neuron devices, EFA, tmpfs, multi-node,
# rounded and clamped limits). Per pipeline:
#
#   - pipec build --target batch,docker twice: the same bytes;
#   - batch/submit.sh against a recording stand-in for aws (and podman),
#     with the registry and Fargate's execution role from the environment,
#     the queue from PIPE_BATCH_QUEUE, the run id and a parameter given: it
#     pushes the images, none under the placeholder, and batch_check.py validates
#     every definition it registers and every submit-job call with
#     botocore's service model (build/venv-aws, PIPEC_AWS_VENV) and checks
#     what that does not: the DAG order and dependsOn, the queue, the
#     command as Batch runs it after the Ref:: substitution, resources,
#     devices, multi-node ranges (batch_check.py says what else);
#   - submit.sh --dry-run on a bundle built with --registry, with stand-ins
#     for aws, podman and docker that fail when called: it calls nothing,
#     exits 0 and prints the register-job-definition and submit-job lines,
#     checked as above (--queue over PIPE_BATCH_QUEUE);
#   - the queue rules: with no queue anywhere, submit.sh stops (exit 2)
#     naming the invocation, before any call; PIPE_REGISTRY unset while the
#     images name the placeholder: it stops before any call;
#   - shellcheck on submit.sh.
#
#   batch_validate.sh PIPEC REPO_ROOT      (PIPEC_AWS_VENV: the venv)
set -u
pipec=$(realpath "$1")
root=$(realpath "$2")
venv=${PIPEC_AWS_VENV:-}
if [ -z "$venv" ] || ! "$venv/bin/python3" -c 'import botocore.validate, yaml' 2>/dev/null; then
    echo "FAIL: botocore or PyYAML is missing from PIPEC_AWS_VENV='$venv': run scripts/install-deps.sh"
    exit 1
fi
py=$venv/bin/python3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIPEC_CUDA_VERSION=12.4.1
REGISTRY=registry.example.com/team
ROLE=arn:aws:iam::123456789012:role/pipe-execution

# Stand-ins: `aws` records (batch_aws_standin.py); podman records; in
# $work/forbid every one of them records that it was called and fails.
mkdir -p "$work/bin" "$work/forbid"
printf '#!/bin/sh\nexec %q %q "$@"\n' "$py" "$root/tests/deploy/batch_aws_standin.py" >"$work/bin/aws"
# shellcheck disable=SC2016 # the stand-ins expand them
printf '#!/bin/sh\necho "$*" >>"$BATCH_ENGINE_LOG"\n' >"$work/bin/podman"
for tool in aws podman docker; do
    # shellcheck disable=SC2016
    printf '#!/bin/sh\necho "%s $*" >>"$BATCH_FORBIDDEN_LOG"\nexit 9\n' "$tool" >"$work/forbid/$tool"
done
chmod +x "$work/bin/"* "$work/forbid/"*

declare -A seen=()
pipes=()
for pipe in "$root"/examples/*/*.pipe "$root"/tests/golden/*/case.pipe "$root"/tests/golden/*/pipe_path \
    "$root/tests/deploy/injection/injection.pipe" "$root"/tests/deploy/batch/*.pipe; do
    [ -e "$pipe" ] || continue
    case $pipe in */pipe_path) pipe="$root/$(cat "$pipe")" ;; esac
    pipe=$(realpath "$pipe")
    [ -n "${seen[$pipe]:-}" ] && continue
    seen[$pipe]=1
    pipes+=("$pipe")
done

status=0
# Whether /tmp/pwned changes while this runs (other tests' payloads write it too).
pwned_before=$(stat -c '%i %Y' /tmp/pwned 2>/dev/null || echo none)
runs=$work/runs.jsonl
: >"$runs"
n=0
# record_run BUNDLE AWS_LOG DRY_OUTPUT RUN_ID QUEUE REGISTRY PARAM_NAME PARAM_VALUE
record_run() {
    "$py" -c 'import json, sys
a = sys.argv[1:]
print(json.dumps({"bundle": a[0], "aws_log": a[1], "dry_run_output": a[2], "run_id": a[3], "queue": a[4],
                  "registry": a[5], "role": a[6], "params": {a[7]: a[8]} if a[7] else {}}))' "$@" >>"$runs"
}

for pipe in "${pipes[@]}"; do
    mapfile -t pls < <(sed -nE 's/^[[:space:]]*pipeline[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$pipe")
    for pl in "${pls[@]}"; do
        n=$((n + 1))
        out=$work/b$n
        build() { (cd "$(dirname "$pipe")" && "$pipec" build "$(basename "$pipe")" --pipeline "$pl" -o "$@" --target batch,docker); }
        if ! build "$out" 2>"$out.err" || ! build "$out.reg" --registry "$REGISTRY" 2>>"$out.err"; then
            echo "FAIL: pipec build $pipe --pipeline $pl"
            cat "$out.err"
            status=1
            continue
        fi
        build "$out.again" 2>/dev/null
        if ! diff -r "$out/batch" "$out.again/batch" >/dev/null; then
            echo "FAIL: $pipe --pipeline $pl: a second build wrote a different batch/"
            status=1
        fi
        if ! shellcheck -x "$out/batch/submit.sh"; then
            echo "FAIL: shellcheck $pipe --pipeline $pl: batch/submit.sh"
            status=1
        fi
        # A string parameter, given with characters JSON and the shell read.
        pname=$(sed -nE 's/^- \{name: ([A-Za-z_][A-Za-z0-9_]*), type: string.*/\1/p' "$out/bundle.yaml" | head -n 1)
        pvalue="it's \"given\", \$HOME \\ {x}"
        pargs=()
        [ -z "$pname" ] || pargs=(--param "$pname=$pvalue")

        # 1. Submitted against the stand-ins.
        log=$out.aws.jsonl engine=$out.engine
        : >"$log"
        : >"$engine"
        if ! PATH="$work/bin:$PATH" BATCH_AWS_LOG=$log BATCH_ENGINE_LOG=$engine PIPE_REGISTRY=$REGISTRY \
            PIPE_BATCH_QUEUE=env-queue PIPE_BATCH_EXECUTION_ROLE=$ROLE \
            "$out/batch/submit.sh" --run-id run-1 "${pargs[@]+"${pargs[@]}"}" >"$out.submit" 2>&1; then
            echo "FAIL: $pipe --pipeline $pl: submit.sh against the stand-ins"
            cat "$out.submit"
            status=1
        fi
        if grep -q "PIPE_REGISTRY/" "$engine" || ! grep -q "^push " "$engine"; then
            echo "FAIL: $pipe --pipeline $pl: images not pushed, or pushed without the registry:"
            cat "$engine"
            status=1
        fi
        record_run "$out" "$log" "" run-1 env-queue "$REGISTRY" "$ROLE" "$pname" "$pvalue"

        # 2. --dry-run: calls nothing, prints every call.
        forbidden=$out.forbidden
        : >"$forbidden"
        if ! PATH="$work/forbid:$PATH" TMPDIR=$work BATCH_FORBIDDEN_LOG=$forbidden PIPE_BATCH_QUEUE=env-queue \
            PIPE_BATCH_EXECUTION_ROLE=$ROLE "$out.reg/batch/submit.sh" --dry-run --queue cli-queue --run-id dry-1 \
            "${pargs[@]+"${pargs[@]}"}" >"$out.dry" 2>"$out.dry.err"; then
            echo "FAIL: $pipe --pipeline $pl: submit.sh --dry-run"
            cat "$out.dry.err"
            status=1
        fi
        if [ -s "$forbidden" ]; then
            echo "FAIL: $pipe --pipeline $pl: submit.sh --dry-run called:"
            cat "$forbidden"
            status=1
        fi
        record_run "$out.reg" "" "$out.dry" dry-1 cli-queue "$REGISTRY" "$ROLE" "$pname" "$pvalue"

        # 3. No queue: a clear error before any call, when some job needs one.
        if grep -q "^    [^ ]* [^ ]* [^ ]* '' " "$out.reg/batch/submit.sh"; then
            : >"$forbidden"
            rc=0
            PATH="$work/forbid:$PATH" BATCH_FORBIDDEN_LOG=$forbidden PIPE_BATCH_EXECUTION_ROLE=$ROLE \
                "$out.reg/batch/submit.sh" --no-push >"$out.noqueue" 2>&1 || rc=$?
            if [ "$rc" != 2 ] || ! grep -q "no job queue for" "$out.noqueue" || [ -s "$forbidden" ]; then
                echo "FAIL: $pipe --pipeline $pl: without a queue submit.sh exited $rc:"
                cat "$out.noqueue" "$forbidden"
                status=1
            fi
        fi
        # 4. The registry's placeholder without PIPE_REGISTRY.
        if grep -q '"image": "PIPE_REGISTRY/' "$out"/batch/*.json; then
            : >"$forbidden"
            rc=0
            (unset PIPE_REGISTRY; PATH="$work/forbid:$PATH" BATCH_FORBIDDEN_LOG=$forbidden \
                PIPE_BATCH_EXECUTION_ROLE=$ROLE "$out/batch/submit.sh" --queue q --dry-run) >"$out.noreg" 2>&1 || rc=$?
            if [ "$rc" = 0 ] || ! grep -q PIPE_REGISTRY "$out.noreg" || [ -s "$forbidden" ]; then
                echo "FAIL: $pipe --pipeline $pl: without PIPE_REGISTRY submit.sh exited $rc:"
                cat "$out.noreg"
                status=1
            fi
        fi
    done
done
# batch/cases.pipe's `hostile` step would make this file if a string ran.
if [ "$(stat -c '%i %Y' /tmp/pwned 2>/dev/null || echo none)" != "$pwned_before" ]; then
    echo "FAIL: /tmp/pwned was written: a string from a .pipe file ran as a command"
    status=1
fi
"$py" "$root/tests/deploy/batch_check.py" "$runs" || status=1
[ $status = 0 ] && echo "batch_validate: ok ($n pipelines)"
exit $status
