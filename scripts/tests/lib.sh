# shellcheck shell=bash
# Sourced by every test: result reporting on top of the project's lib.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

: "${CHECK_RESULTS:=/dev/stderr}"
pass() { echo "pass $*" >>"$CHECK_RESULTS"; echo "PASS: $*"; }
fail() { echo "fail $*" >>"$CHECK_RESULTS"; echo "FAIL: $*"; }
skip() { echo "skip $*" >>"$CHECK_RESULTS"; echo "SKIP: $*"; }
# expect NAME COMMAND...: one result named NAME from a command's success.
expect() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }

# Build (incrementally) and print the paths the boot tests need; the build logs stay in the cache.
kernel_image() {
	local dir
	dir=$("$PROJECT_ROOT/scripts/build-kernel" "$@" | tail -n 1) || return 1
	echo "$dir/arch/x86/boot/bzImage"
}
rootfs_image() { "$PROJECT_ROOT/guest-rootfs/build" | tail -n 1; }
