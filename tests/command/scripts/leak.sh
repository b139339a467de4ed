#!/bin/sh
# An output that holds what it may not (a link to a file elsewhere, a hard
# link to one) or, with `inside`, only what it may: a link to its own file.
set -eu
mode=$1 out=$2
elsewhere="$PIPE_STORE/elsewhere-$mode"
echo v1 >"$elsewhere"
case $mode in
passwd) ln -s /etc/passwd "$out" ;;
absolute) mkdir "$out" && echo x >"$out/x" && ln -s "$elsewhere" "$out/current" ;;
up) mkdir -p "$out/sub" && ln -s ../../elsewhere "$out/sub/current" ;;
hard) mkdir "$out" && ln "$elsewhere" "$out/copy" ;;
inside) mkdir "$out" && echo v1 >"$out/v1" && ln -s v1 "$out/current" ;;
esac
