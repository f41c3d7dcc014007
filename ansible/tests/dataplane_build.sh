#!/bin/bash
# The dataplane role's source build (tests/dataplane-build.yml, on the control
# node, a stand-in source tree whose make fails while a flag file exists):
#   v1 builds and is installed; v2 with make failing must fail, and fail again
#   on a re-run of the same sources (not install the old build and report
#   success); once make works v2 is built and installed; a run more changes
#   nothing; v3 is built and installed (make is not fooled by the copied
#   sources' mtime 0).  Usage: dataplane_build.sh RUN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ansible_dir=$(dirname "$here")
export ADWISER_BUILD_TEST_DIR="$1/dataplane-build"
t="$ADWISER_BUILD_TEST_DIR"
rm -rf "$t"; mkdir -p "$t/src"
printf 'build: build/adwiser-dp\n\nbuild/adwiser-dp: main.sh\n\t@test ! -e %s || { echo "make: simulated failure" >&2; exit 1; }\n\tmkdir -p build && cp main.sh $@ && chmod 0755 $@\n' \
    "$t/make-fails" > "$t/src/Makefile"
failed=0
# step NAME VERSION MUST(ok|fail) WANT_INSTALLED [changed=0]
step() {
    printf '#!/bin/sh\necho %s\n' "$2" > "$t/src/main.sh"
    local rc=0 got
    (cd "$ansible_dir" && ansible-playbook -i localhost, "$here/dataplane-build.yml") > "$t/$1.log" 2>&1 || rc=$?
    got=$(sh "$t/appliance/adwiser-dp" 2>/dev/null || echo none)
    if { [ "$3" = ok ] && [ $rc = 0 ]; } || { [ "$3" = fail ] && [ $rc != 0 ]; }; then :; else
        echo "FAIL build $1: the play's exit status was $rc, want $3"; tail -20 "$t/$1.log"; failed=1; return; fi
    if [ "$got" != "$4" ]; then echo "FAIL build $1: installed $got, want $4"; failed=1; return; fi
    if [ "${5:-}" = changed=0 ] && ! grep -qE '^localhost +: ok=[0-9]+ +changed=0 ' "$t/$1.log"; then
        echo "FAIL build $1: $(grep -E '^localhost +: ok=' "$t/$1.log")"; failed=1; return; fi
    echo "PASS build $1: play $3, $got installed${5:+, $5}"
}
step v1 v1 ok v1
touch "$t/make-fails"
step v2-make-fails v2 fail v1
step v2-make-fails-again v2 fail v1
rm "$t/make-fails"
step v2-make-works v2 ok v2
step v2-again v2 ok v2 changed=0
step v3 v3 ok v3
exit $failed
