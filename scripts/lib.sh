# shellcheck shell=bash
# Shared by every host script: where the cache lives, how we report, how we fail.

PROJECT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${PERCPU_VMSTAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/percpu-vmstat}
# The Debian kernels the series exists for, oldest first: KERNEL=6.1|6.12 chooses one; its
# series is patches/$KERNEL/, its source Debian's linux-source-$KERNEL. The default is the
# newest: the 6.12 series passed a whole make check from a fresh clone and an empty cache.
# shellcheck disable=SC2034 # used by the scripts that source this file
declare -a KERNELS=(6.1 6.12)
DEFAULT_KERNEL=6.12
KERNEL=${KERNEL:-$DEFAULT_KERNEL}
if [[ " ${KERNELS[*]} " != *" $KERNEL "* ]]; then
	printf '[%s] usage error: KERNEL=%s: the series exists for %s only\n' "$(basename "$0")" \
		"$KERNEL" "${KERNELS[*]}" >&2
	exit 2
fi
export KERNEL
# The guest's architecture: x86_64 (the default), i386, arm64 or riscv64, chosen by GUEST_ARCH
# or ARCH (make's ARCH=arm64 arrives as GUEST_ARCH). Each has a kbuild ARCH, a cross compiler
# (Debian's gcc-*-linux-gnu), an image, a QEMU and a machine. ARCH and CROSS_COMPILE are
# exported with kbuild's values, so that every make in the kernel tree, whoever runs it, builds
# for the guest: ARCH=x86 for x86_64, the native default, with which tinyconfig is what it
# always was here (ARCH=x86_64 would give another tinyconfig).
# shellcheck disable=SC2034 # used by the scripts that source this file
declare -a ARCHES=(x86_64 i386 arm64 riscv64)
# image_for_arch ARCH: where a build of that architecture leaves the image to boot.
image_for_arch() {
	case $1 in
	x86_64|x86|i386) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	riscv64|riscv) echo arch/riscv/boot/Image ;;
	*) return 1 ;;
	esac
}
GUEST_ARCH=${GUEST_ARCH:-${ARCH:-x86_64}}
# shellcheck disable=SC2034 # used by the scripts that source this file
case $GUEST_ARCH in
x86_64|x86) GUEST_ARCH=x86_64 ARCH=x86 CROSS_COMPILE='' GUEST_CC=gcc
	QEMU_SYSTEM=qemu-system-x86_64 QEMU_PACKAGE=qemu-system-x86 CROSS_PACKAGE='' ;;
# The host's gcc builds the 32-bit kernel (-m32); the guest's programs, which link a C library,
# take Debian's i686 cross compiler and its libc6-dev-i386-cross (gcc-multilib would do too,
# but it conflicts with the other cross compilers).
i386) ARCH=i386 CROSS_COMPILE='' GUEST_CC=i686-linux-gnu-gcc
	QEMU_SYSTEM=qemu-system-i386 QEMU_PACKAGE=qemu-system-x86 CROSS_PACKAGE='' ;;
arm64) ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- GUEST_CC=aarch64-linux-gnu-gcc
	QEMU_SYSTEM=qemu-system-aarch64 QEMU_PACKAGE=qemu-system-arm CROSS_PACKAGE=gcc-aarch64-linux-gnu ;;
riscv64|riscv) GUEST_ARCH=riscv64 ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- GUEST_CC=riscv64-linux-gnu-gcc
	QEMU_SYSTEM=qemu-system-riscv64 QEMU_PACKAGE=qemu-system-misc CROSS_PACKAGE=gcc-riscv64-linux-gnu ;;
*)
	printf '[%s] usage error: ARCH=%s: the guest runs on %s only\n' "$(basename "$0")" \
		"$GUEST_ARCH" "${ARCHES[*]}" >&2
	exit 2 ;;
esac
# shellcheck disable=SC2034 # used by the scripts that source this file
KERNEL_IMAGE=$(image_for_arch "$GUEST_ARCH")
export GUEST_ARCH ARCH CROSS_COMPILE
# The other architectures make check boots the KUnit suites on (scripts/tests/52-kunit-arches):
# all three by default; CHECK_ARCHES='' (or a subset) skips them, e.g. for a quicker run.
# scripts/setup installs their QEMU and cross compiler, and arm64's user space.
# shellcheck disable=SC2034
CHECK_ARCHES_DEFAULT='arm64 i386 riscv64'
# x86_64's builds keep the names they had before other architectures came; others are prefixed.
# shellcheck disable=SC2034
ARCH_PREFIX=$([[ $GUEST_ARCH == x86_64 ]] || echo "$GUEST_ARCH-")
SERIES_DIR=$PROJECT_ROOT/patches/$KERNEL
LINUX_TARBALL=${LINUX_TARBALL:-/usr/src/linux-source-$KERNEL.tar.xz}
# Everything built from one kernel's source lives in its own part of the cache. The cached
# source is a git repository: "pristine" is Debian's tree as shipped, the build worktree is
# pristine + the series, and a scratch worktree is where `git am` runs.
KERNEL_CACHE=$CACHE_DIR/kernel-$KERNEL
# shellcheck disable=SC2034 # used by the scripts that source this file
declare LINUX_REPO=$KERNEL_CACHE/linux LINUX_SCRATCH=$KERNEL_CACHE/linux-am PRISTINE_TAG=pristine

# pristine_commit_id TREE VERSION (in $LINUX_REPO): the commit of Debian's tree as shipped,
# written with fixed author, committer, dates and message, so that its id depends only on the
# tree and the package version: the same on every machine, hence citable as base-commit: in a
# cover letter although Debian's tree has no upstream commit id. Caches made before it was
# fixed have another pristine commit of the same tree; this recomputes the citable one.
pristine_commit_id() {
	GIT_AUTHOR_NAME='percpu-vmstat build' GIT_AUTHOR_EMAIL='build@percpu-vmstat.invalid' \
	GIT_COMMITTER_NAME='percpu-vmstat build' GIT_COMMITTER_EMAIL='build@percpu-vmstat.invalid' \
	GIT_AUTHOR_DATE='2000-01-01T00:00:00+0000' GIT_COMMITTER_DATE='2000-01-01T00:00:00+0000' \
		git -C "$LINUX_REPO" commit-tree "$1" -m "Debian linux-source-$KERNEL $2 (pristine)"
}

SCRIPT_NAME=$(basename "$0")

say() { printf '[%s] %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }

# Exit code convention for usage errors, shared with the analysis tools.
usage_error() { printf '[%s] usage error: %s (see --help)\n' "$SCRIPT_NAME" "$*" >&2; exit 2; }

# hash_files FILE...: one hash over names and contents, stable across runs.
hash_files() {
	local f
	for f in "$@"; do
		printf '%s\n' "$(basename "$f")"
		cat "$f"
	done | sha256sum | cut -c1-16
}

series_files() {
	find "$SERIES_DIR" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | sort
}
# testing_files: the test-only patches of $SERIES_DIR/testing/, in order: never posted, applied
# after the series only to kernels whose config fragments ask for them (build-kernel --testing).
testing_files() {
	[[ -d $SERIES_DIR/testing ]] || return 0
	find "$SERIES_DIR/testing" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort
}

# Runs "$@" with its output in LOG, printing a heartbeat so long steps show progress.
# The heartbeat counts the lines matching PROGRESS_RE (default: kbuild's "  CC" lines) and names
# the last one; with PROGRESS_TOTAL (the count a whole run of that step gives, e.g. the previous
# build of the same configuration) it says "N of M (P%), about S s left".
run_logged() {
	local log=$1 what=$2; shift 2
	local re=${PROGRESS_RE:-'^  [A-Z]'} total=${PROGRESS_TOTAL:-0}
	local start=$SECONDS next=$((SECONDS + 20)) pid rc n took left
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if ((SECONDS >= next)); then
			next=$((SECONDS + 20))
			n=$(grep -cE "$re" "$log" || true)
			took=$((SECONDS - start))
			if ((total > 0 && n > 0 && n < total)); then
				left=$(( took * (total - n) / n ))
				say "$what: ${took}s, $n of $total steps ($((100 * n / total))%), about ${left}s left; last: $(grep -E "$re" "$log" | tail -n 1 | sed 's/^ *//')"
			else
				say "$what: ${took}s, $n steps$( ((total > 0)) && echo " (of about $total)"), last: $(grep -E "$re" "$log" | tail -n 1 | sed 's/^ *//')"
			fi
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	if (( rc != 0 )); then
		say "$what failed (exit $rc) after $((SECONDS - start))s; last lines of $log:"
		tail -n 25 "$log" >&2
		return "$rc"
	fi
	say "$what done in $((SECONDS - start))s, $(grep -cE "$re" "$log" || true) steps (log: $log)"
}
