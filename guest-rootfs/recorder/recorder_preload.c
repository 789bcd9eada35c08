// SPDX-License-Identifier: GPL-2.0
/*
 * recorder_preload.so: LD_PRELOADed into trace-cmd in the guest so that its readers keep up.
 *
 * Why: trace-cmd's per-CPU readers copy one 4 KiB ring-buffer page per read(2) and write it
 * with one write(2) to the output file's directory, here a virtio-9p share. Every 9p write is
 * a synchronous round trip to QEMU: measured in this guest, 4 KiB writes move 8 MB/s, 64 KiB
 * writes 190 MB/s. The default stress produces about 6 MB/s of events, so the readers fell
 * behind whenever the host was busy and the ring buffers overran (hotplug on 3 vCPUs).
 *
 * What it does, and nothing else:
 * 1. Sequential write(2)s to regular files on a 9p mount are gathered in a 1 MiB buffer per
 *    file descriptor and written in one call. Every other operation on that descriptor
 *    (read, lseek, pread/pwrite, fstat, ftruncate, mmap, dup, fcntl, splice, fsync, close)
 *    and fork() and exit() write the buffer out first, so everything trace-cmd can observe
 *    (file offsets, sizes, contents) is what it would be without the buffer; a descriptor
 *    that is duplicated stops being buffered. A buffer that cannot be written out ends the
 *    process with status 70 and a line "recorder_preload: error: ..." naming the file:
 *    trace-cmd ignores its readers' exit status, so tracing/record.sh looks for that line
 *    and fails the recording rather than let a short file be audited.
 * 2. The process's current mappings (trace-cmd's text, libraries, stack) are locked in
 *    memory, in the parent and again in each forked reader (locks are not inherited), and
 *    so are the buffers: under the stress's memory pressure a reader must not wait for its
 *    own code to be swapped back in from zram.
 * 3. Transparent huge pages are off for trace-cmd (PR_SET_THP_DISABLE): with THP defrag
 *    'always' (the stress's setting) a reader's page fault could otherwise stall in direct
 *    compaction.
 *
 * trace-cmd's own stdio (fopen/fwrite) is not touched: only descriptors opened through
 * open()/open64() here are buffered.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define V9FS_MAGIC	0x01021997
#define BATCH_BYTES	(1 << 20)
#define MAX_FDS		1024
#define EXIT_FLUSH_FAILED 70

struct batch {
	char *data;		/* NULL: this descriptor is not buffered */
	size_t len;
};

static struct batch batches[MAX_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define REAL(name) static __typeof__(name) *real_##name; \
	if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static int tracked(int fd)
{
	return fd >= 0 && fd < MAX_FDS && batches[fd].data;
}

/*
 * The lock is held with every signal blocked: trace-cmd stops a reader with SIGUSR1, whose
 * handler calls fcntl() (tracefs_cpu_stop()); taking the lock again there would deadlock.
 */
static void enter(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	pthread_mutex_lock(&lock);
}

static void leave(const sigset_t *old)
{
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void die_flush(int fd, int err)
{
	char path[64], target[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	fprintf(stderr, "recorder_preload: error: writing buffered trace data to %s (fd %d) "
		"failed: %s; the recording is incomplete\n", n > 0 ? target : "?", fd, strerror(err));
	_exit(EXIT_FLUSH_FAILED);
}

static void flush_locked(int fd)
{
	REAL(write);
	struct batch *b;
	size_t done = 0;

	if (!tracked(fd))
		return;
	b = &batches[fd];
	while (done < b->len) {
		ssize_t n = real_write(fd, b->data + done, b->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die_flush(fd, n < 0 ? errno : EIO);
		done += n;
	}
	b->len = 0;
}

static void forget_locked(int fd)
{
	if (!tracked(fd))
		return;
	munmap(batches[fd].data, BATCH_BYTES);
	batches[fd].data = NULL;
	batches[fd].len = 0;
}

/* Writes out FD's buffer (FORGET: and stops buffering FD); errno is left as it was. */
static void flush_fd(int fd, int forget)
{
	int saved = errno;
	sigset_t old;

	if (!tracked(fd))
		return;
	enter(&old);
	flush_locked(fd);
	if (forget)
		forget_locked(fd);
	leave(&old);
	errno = saved;
}

static void flush_all(void)
{
	int saved = errno;
	sigset_t old;

	enter(&old);
	for (int fd = 0; fd < MAX_FDS; fd++)
		flush_locked(fd);
	leave(&old);
	errno = saved;
}

/* Buffer FD if it is a regular file on 9p opened for writing. */
static void track_fd(int fd, int flags)
{
	struct statfs sfs;
	struct stat st;
	sigset_t old;
	void *mem;

	if (fd < 0 || fd >= MAX_FDS || (flags & O_ACCMODE) == O_RDONLY)
		return;
	if (fstatfs(fd, &sfs) || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	/* RECORDER_PRELOAD_ANY_FS=1: buffer on any file system (the host test, preload-test). */
	if (sfs.f_type != V9FS_MAGIC && !getenv("RECORDER_PRELOAD_ANY_FS"))
		return;
	mem = mmap(NULL, BATCH_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return;		/* unbuffered: slower, still correct */
	mlock(mem, BATCH_BYTES);
	enter(&old);
	forget_locked(fd);
	batches[fd].data = mem;
	batches[fd].len = 0;
	leave(&old);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_TRACKED(name) \
	int name(const char *path, int flags, ...) \
	{ \
		REAL(name); \
		va_list ap; \
		int fd; \
		va_start(ap, flags); \
		fd = real_##name(path, flags, mode_arg(flags, ap)); \
		va_end(ap); \
		track_fd(fd, flags); \
		return fd; \
	}

OPEN_TRACKED(open)
OPEN_TRACKED(open64)

ssize_t write(int fd, const void *buf, size_t count)
{
	REAL(write);
	struct batch *b;
	sigset_t old;

	if (!tracked(fd))
		return real_write(fd, buf, count);
	enter(&old);
	b = &batches[fd];
	if (b->data && b->len + count > BATCH_BYTES)
		flush_locked(fd);
	if (!b->data || count > BATCH_BYTES) {
		leave(&old);
		return real_write(fd, buf, count);
	}
	memcpy(b->data + b->len, buf, count);
	b->len += count;
	leave(&old);
	return count;
}

int close(int fd)
{
	REAL(close);

	flush_fd(fd, 1);
	return real_close(fd);
}

/* Every other operation on a descriptor sees the file as if no byte had been held back. */
#define FLUSH_THEN(ret, name, params, fd, args) \
	ret name params \
	{ \
		REAL(name); \
		flush_fd(fd, 0); \
		return real_##name args; \
	}

FLUSH_THEN(ssize_t, read, (int fd, void *buf, size_t n), fd, (fd, buf, n))
FLUSH_THEN(ssize_t, pread, (int fd, void *buf, size_t n, off_t off), fd, (fd, buf, n, off))
FLUSH_THEN(ssize_t, pwrite, (int fd, const void *buf, size_t n, off_t off), fd, (fd, buf, n, off))
FLUSH_THEN(ssize_t, pread64, (int fd, void *buf, size_t n, off64_t off), fd, (fd, buf, n, off))
FLUSH_THEN(ssize_t, pwrite64, (int fd, const void *buf, size_t n, off64_t off), fd, (fd, buf, n, off))
FLUSH_THEN(off_t, lseek, (int fd, off_t off, int whence), fd, (fd, off, whence))
FLUSH_THEN(off64_t, lseek64, (int fd, off64_t off, int whence), fd, (fd, off, whence))
FLUSH_THEN(int, fstat, (int fd, struct stat *st), fd, (fd, st))
FLUSH_THEN(int, fstat64, (int fd, struct stat64 *st), fd, (fd, st))
FLUSH_THEN(int, ftruncate, (int fd, off_t len), fd, (fd, len))
FLUSH_THEN(int, ftruncate64, (int fd, off64_t len), fd, (fd, len))
FLUSH_THEN(int, fsync, (int fd), fd, (fd))
FLUSH_THEN(int, fdatasync, (int fd), fd, (fd))
FLUSH_THEN(void *, mmap, (void *a, size_t n, int p, int f, int fd, off_t o), fd, (a, n, p, f, fd, o))
FLUSH_THEN(void *, mmap64, (void *a, size_t n, int p, int f, int fd, off64_t o), fd, (a, n, p, f, fd, o))

/* A duplicate shares the file offset: from then on neither copy may hold bytes back. */
int dup(int fd)
{
	REAL(dup);

	flush_fd(fd, 1);
	return real_dup(fd);
}

int dup2(int fd, int fd2)
{
	REAL(dup2);

	flush_fd(fd, 1);
	if (fd2 != fd)
		flush_fd(fd2, 1);	/* dup2 closes it */
	return real_dup2(fd, fd2);
}

ssize_t splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len, unsigned int flags)
{
	REAL(splice);

	flush_fd(fd_in, 0);
	flush_fd(fd_out, 0);
	return real_splice(fd_in, off_in, fd_out, off_out, len, flags);
}

#define FCNTL_FLUSHED(name) \
	int name(int fd, int cmd, ...) \
	{ \
		REAL(name); \
		va_list ap; \
		void *arg; \
		va_start(ap, cmd); \
		arg = va_arg(ap, void *); \
		va_end(ap); \
		flush_fd(fd, cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC); \
		return real_##name(fd, cmd, arg); \
	}

FCNTL_FLUSHED(fcntl)
FCNTL_FLUSHED(fcntl64)

/* A child must not inherit bytes its parent will also write, nor lose the memory locks. */
pid_t fork(void)
{
	REAL(fork);
	pid_t pid;

	flush_all();
	pid = real_fork();
	if (pid == 0 && mlockall(MCL_CURRENT))
		fprintf(stderr, "recorder_preload: mlockall in pid %d: %s (the reader may be swapped out)\n",
			(int)getpid(), strerror(errno));
	return pid;
}

__attribute__((constructor)) static void recorder_preload_init(void)
{
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		fprintf(stderr, "recorder_preload: PR_SET_THP_DISABLE: %s\n", strerror(errno));
	if (mlockall(MCL_CURRENT))
		fprintf(stderr, "recorder_preload: mlockall: %s (the readers may be swapped out)\n",
			strerror(errno));
}

__attribute__((destructor)) static void recorder_preload_fini(void)
{
	flush_all();
}
