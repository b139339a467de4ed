#!/usr/bin/env bash
# Brackets nested past the limit (64, E0121) in every construct that nests:
# lists, maps, calls in arguments, decorator values, a `(` alone. At 10,000
# and 1,000,000 levels, closed or not, `pipec check` and `pipec fmt` report
# exactly one E0121 at bracket 65 and nothing else (but the syntax error of
# `((`) (no "memory exhausted"
# from the parser's stack, no crash under ASan), quickly, and fmt leaves the
# file as it was. At exactly 64 levels nothing is reported about depth and
# every walker of the tree (checker, fmt) gets through: ASan would see a
# stack overflow.
#   deep_nesting.sh PIPEC WORK
set -u
pipec=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
passed=0
failed=0
fail() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}
rep() { # rep TEXT N: TEXT N times
    local s=$1 n=$2 out=""
    while [ "$n" -gt 0 ]; do
        if [ $((n & 1)) = 1 ]; then out+=$s; fi
        s+=$s
        n=$((n >> 1))
    done
    printf '%s' "$out"
}
# make NAME DEPTH CLOSED: one file per construct; the open brackets before
# the nested value (the pipeline's `{`, the call's `(`) count too.
make() {
    local name=$1 n=$2 closed=$3 file="$work/$1-$2-$3.pipe" open close
    case $name in
        list) open=$(rep '[' "$n"); close=$(rep ']' "$n") ;;
        map) open=$(rep '{"k": ' "$n"); close=$(rep '}' "$n") ;;
        call) open=$(rep 'f(a = ' "$n"); close=$(rep ')' "$n") ;;
        paren) open=$(rep '(' "$n"); close=$(rep ')' "$n") ;;
        decorator) open=$(rep '[' "$n"); close=$(rep ']' "$n") ;;
    esac
    [ "$closed" = open ] && close=""
    {
        printf 'step s(x: string = "a") {\n    source = "s.c"\n}\n\n'
        case $name in
            decorator) printf '@docker(apt = %s1%s)\npipeline p() {\n    s()\n}\n' "$open" "$close" ;;
            paren) printf 'pipeline p() {\n    %sa%s = s()\n}\n' "$open" "$close" ;;
            *) printf 'pipeline p() {\n    s(x = %s"v"%s)\n}\n' "$open" "$close" ;;
        esac
    } >"$file"
    echo "$file"
}
: >"$work/s.c"

# Past the limit.
for n in 10000 1000000; do
    for name in list map call paren decorator; do
        for closed in closed open; do
            f=$(make "$name" "$n" "$closed")
            cp "$f" "$f.orig"
            for cmd in check fmt; do
                start=$(date +%s%N)
                out=$(timeout 60 "$pipec" "$cmd" "$f" 2>&1)
                status=$?
                ms=$((($(date +%s%N) - start) / 1000000))
                what="pipec $cmd $name x$n ($closed)"
                [ "$status" = 1 ] || fail "$what exited $status, expected 1: $(printf '%s' "$out" | tail -3)"
                [ "$(printf '%s\n' "$out" | grep -c 'error\[E0121\]')" = 1 ] || fail "$what: not one E0121"
                # `((` is a syntax error of its own (E0010 at the second `(`),
                # reported before the depth; every other construct is valid.
                others=0
                [ "$name" = paren ] && others=1
                [ "$(printf '%s\n' "$out" | grep -c 'error\[')" = $((others + 1)) ] ||
                    fail "$what: other errors: $(printf '%s' "$out" | grep 'error\[' | head -3)"
                printf '%s' "$out" | grep -q 'memory exhausted' && fail "$what: memory exhausted"
                printf '%s' "$out" | grep -q 'bracket 65 opens here' || fail "$what: the position is not bracket 65"
                # Generous for ASan on a busy machine; the parse itself takes milliseconds.
                [ "$ms" -lt 20000 ] || fail "$what took $ms ms"
                cmp -s "$f" "$f.orig" || fail "$what changed the file"
                passed=$((passed + 1))
            done
        done
    done
done

# At the limit: 64 brackets in all (2 around the value, in the decorator 1).
for name in list map call decorator; do
    n=62
    [ "$name" = decorator ] && n=63
    f=$(make "$name" "$n" closed)
    out=$("$pipec" check "$f" 2>&1)
    printf '%s' "$out" | grep -q 'E0121' && fail "check $name x$n reports E0121: $out"
    printf '%s' "$out" | grep -q 'runtime error\|AddressSanitizer' && fail "check $name x$n: $out"
    "$pipec" fmt "$f" >"$work/fmt.out" 2>&1
    status=$?
    if [ "$name" = list ] || [ "$name" = map ]; then
        # These parse: fmt lays them out (one level per line), and again
        # gives the same.
        [ "$status" = 0 ] || fail "fmt $name x$n exited $status: $(tail -3 "$work/fmt.out")"
        "$pipec" fmt --check "$f" >/dev/null 2>&1 || fail "fmt --check $name x$n after fmt"
    fi
    grep -q 'runtime error\|AddressSanitizer\|E0121' "$work/fmt.out" && fail "fmt $name x$n: $(head -3 "$work/fmt.out")"
    passed=$((passed + 1))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
