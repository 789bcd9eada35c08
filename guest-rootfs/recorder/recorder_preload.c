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
 *    (file offsets, sizes, contents) is what it would be without the buffer. A buffer that
 *    cannot be written out ends the process with status 70 and a message naming the file:
 *    trace-cmd then exits non-zero and the recording is reported as failed, never as short.
 * 2. The process's current mappings (trace-cmd's text, libraries, stack) are locked in
 *    memory, and so are the buffers: under the stress's memory pressure a reader must not
 *    wait for its own code to be swapped back in from zram.
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

static void die_flush(int fd, int err)
{
	char path[64], target[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	fprintf(stderr, "recorder_preload: writing buffered trace data to %s (fd %d) failed: %s; "
		"the recording is incomplete\n", n > 0 ? target : "?", fd, strerror(err));
	_exit(EXIT_FLUSH_FAILED);
}

static void flush_locked(int fd)
{
	REAL(write);
	struct batch *b;
	size_t done = 0;

	if (fd < 0 || fd >= MAX_FDS)
		return;
	b = &batches[fd];
	while (b->data && done < b->len) {
		ssize_t n = real_write(fd, b->data + done, b->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die_flush(fd, n < 0 ? errno : EIO);
		done += n;
	}
	if (b->data)
		b->len = 0;
}

/* Writes out FD's buffer; errno is what the caller's own call will set, not ours. */
static void flush_fd(int fd)
{
	int saved = errno;

	pthread_mutex_lock(&lock);
	flush_locked(fd);
	pthread_mutex_unlock(&lock);
	errno = saved;
}

static void flush_all(void)
{
	int saved = errno;

	pthread_mutex_lock(&lock);
	for (int fd = 0; fd < MAX_FDS; fd++)
		flush_locked(fd);
	pthread_mutex_unlock(&lock);
	errno = saved;
}

static void forget_fd(int fd)
{
	if (fd < 0 || fd >= MAX_FDS || !batches[fd].data)
		return;
	munmap(batches[fd].data, BATCH_BYTES);
	batches[fd].data = NULL;
	batches[fd].len = 0;
}

/* Buffer FD if it is a regular file on 9p opened for writing. */
static void track_fd(int fd, int flags)
{
	struct statfs sfs;
	struct stat st;
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
	pthread_mutex_lock(&lock);
	forget_fd(fd);
	batches[fd].data = mem;
	batches[fd].len = 0;
	pthread_mutex_unlock(&lock);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	REAL(open);
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = real_open(path, flags, mode_arg(flags, ap));
	va_end(ap);
	track_fd(fd, flags);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	REAL(open64);
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = real_open64(path, flags, mode_arg(flags, ap));
	va_end(ap);
	track_fd(fd, flags);
	return fd;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	REAL(write);
	struct batch *b;

	if (fd < 0 || fd >= MAX_FDS || !batches[fd].data)
		return real_write(fd, buf, count);
	pthread_mutex_lock(&lock);
	b = &batches[fd];
	if (b->data && b->len + count > BATCH_BYTES)
		flush_locked(fd);
	if (!b->data || count > BATCH_BYTES) {
		pthread_mutex_unlock(&lock);
		return real_write(fd, buf, count);
	}
	memcpy(b->data + b->len, buf, count);
	b->len += count;
	pthread_mutex_unlock(&lock);
	return count;
}

int close(int fd)
{
	REAL(close);

	pthread_mutex_lock(&lock);
	if (fd >= 0 && fd < MAX_FDS && batches[fd].data) {
		flush_locked(fd);
		forget_fd(fd);
	}
	pthread_mutex_unlock(&lock);
	return real_close(fd);
}

/* Every other operation on a descriptor sees the file as if no byte had been held back. */
#define FLUSH_THEN(ret, name, params, fd, args) \
	ret name params \
	{ \
		REAL(name); \
		flush_fd(fd); \
		return real_##name args; \
	}

FLUSH_THEN(ssize_t, read, (int fd, void *buf, size_t n), fd, (fd, buf, n))
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
FLUSH_THEN(int, dup, (int fd), fd, (fd))
FLUSH_THEN(void *, mmap, (void *a, size_t n, int p, int f, int fd, off_t o), fd, (a, n, p, f, fd, o))
FLUSH_THEN(void *, mmap64, (void *a, size_t n, int p, int f, int fd, off64_t o), fd, (a, n, p, f, fd, o))

int dup2(int fd, int fd2)
{
	REAL(dup2);

	flush_fd(fd);
	pthread_mutex_lock(&lock);
	if (fd2 != fd && fd2 >= 0 && fd2 < MAX_FDS && batches[fd2].data) {
		flush_locked(fd2);
		forget_fd(fd2);
	}
	pthread_mutex_unlock(&lock);
	return real_dup2(fd, fd2);
}

ssize_t splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len, unsigned int flags)
{
	REAL(splice);

	flush_fd(fd_in);
	flush_fd(fd_out);
	return real_splice(fd_in, off_in, fd_out, off_out, len, flags);
}

int fcntl(int fd, int cmd, ...)
{
	REAL(fcntl);
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	flush_fd(fd);
	return real_fcntl(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
	REAL(fcntl64);
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	flush_fd(fd);
	return real_fcntl64(fd, cmd, arg);
}

/* A child must not inherit bytes its parent will also write. */
pid_t fork(void)
{
	REAL(fork);

	flush_all();
	return real_fork();
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
