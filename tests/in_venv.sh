#!/bin/sh
# Runs a test's command with the tests' Python environment on PATH:
#
#   in_venv.sh VENV COMMAND [ARG...]
#
# VENV is build/venv (PIPEC_VENV), made by scripts/install-deps.sh; a test
# that needs it fails, saying how to make it, when it is not there.
venv=$1
shift
if [ ! -x "$venv/bin/python3" ]; then
    echo "FAIL: the tests' Python environment $venv is missing: run scripts/install-deps.sh"
    exit 1
fi
PATH="$venv/bin:$PATH"
PIPEC_VENV=$venv
export PATH PIPEC_VENV
exec "$@"
