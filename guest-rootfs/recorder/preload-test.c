// SPDX-License-Identifier: GPL-2.0
/*
 * preload-test: writes one file through every call recorder_preload.so intercepts, in the
 * order trace-cmd mixes them (sequential writes, then seeks back to patch a header, pwrite,
 * reads of what was written, fstat for the size, a fork whose child appends, ftruncate), and
 * prints the file's size and a checksum. Run with and without the preload, the two outputs
 * must be equal: any operation that saw the file before the buffer was written out differs.
 * It also reads and writes with pread/pwrite into bytes still buffered, writes through a
 * dup()ed descriptor, lets a child exit() without close(), and keeps a 1 ms timer whose
 * handler calls fcntl() (as trace-cmd's SIGUSR1 handler does) while it writes: a preload
 * that takes its lock in that handler hangs, which the caller's timeout turns into a failure.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long long sum;
static int spare_fd;

static void on_alarm(int sig)
{
	(void)sig;
	(void)fcntl(spare_fd, F_GETFL);
}

static void check(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char page[4096], back[64];
	struct stat st;
	int fd, i, status;
	pid_t pid;

	struct itimerval tick = { { 0, 1000 }, { 0, 1000 } };
	int fd2, pipefd[2];
	char scratch[4096];

	check(argc == 2, "usage: preload-test FILE");
	check(pipe(pipefd) == 0, "pipe");
	spare_fd = pipefd[0];
	signal(SIGALRM, on_alarm);
	check(setitimer(ITIMER_REAL, &tick, NULL) == 0, "setitimer");
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	check(fd >= 0, "open");
	for (i = 0; i < 12; i++) {		/* still buffered: pread and pwrite must see them */
		memset(page, 'A' + i, sizeof(page));
		check(write(fd, page, sizeof(page)) == sizeof(page), "write early");
	}
	check(pread(fd, back, sizeof(back), 4096 * 11 + 100) == sizeof(back), "pread buffered");
	for (i = 0; i < (int)sizeof(back); i++)
		sum = sum * 31 + (unsigned char)back[i];
	check(write(fd, "W", 1) == 1, "write before pwrite");
	check(pwrite(fd, "PW", 2, 4096 * 12) == 2, "pwrite buffered");
	for (i = 0; i < 700; i++) {		/* crosses the 1 MiB buffer twice */
		memset(page, 'a' + i % 26, sizeof(page));
		snprintf(page, sizeof(page), "page %d", i);
		check(write(fd, page, sizeof(page)) == sizeof(page), "write");
	}
	check(fstat(fd, &st) == 0, "fstat");
	sum = sum * 31 + st.st_size;		/* the size seen before any explicit flush */
	check(lseek(fd, 10, SEEK_SET) == 10, "lseek");
	check(write(fd, "HEADER", 6) == 6, "write header");
	check(lseek(fd, 0, SEEK_END) > 0, "lseek end");
	check(write(fd, "tail", 4) == 4, "write tail");
	check(pread(fd, back, sizeof(back), 4096 * 3) == sizeof(back), "pread");
	for (i = 0; i < (int)sizeof(back); i++)
		sum = sum * 31 + (unsigned char)back[i];
	check(write(fd, "more", 4) == 4, "write more");
	pid = fork();
	check(pid >= 0, "fork");
	if (pid == 0) {
		check(write(fd, "child", 5) == 5, "child write");
		close(fd);
		_exit(0);
	}
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "waitpid");

	check(write(fd, "parent", 6) == 6, "parent write");
	check(pwrite(fd, "P", 1, 5) == 1, "pwrite");
	check(write(fd, "x", 1) == 1, "write x");
	check(ftruncate(fd, 4096 * 650) == 0, "ftruncate");
	check(write(fd, "after-truncate", 14) == 14, "write after truncate");
	pid = fork();
	check(pid >= 0, "fork 2");
	if (pid == 0) {
		/* exit() without close(): what the child wrote must still reach the file */
		check(write(fd, "exit-child", 10) == 10, "exit-child write");
		exit(0);
	}
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "waitpid 2");
	/* Many small writes to a scratch file while the timer's handler calls fcntl(). */
	snprintf(scratch, sizeof(scratch), "%s.scratch", argv[1]);
	fd2 = open(scratch, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd2 >= 0, "open scratch");
	for (i = 0; i < 40000; i++)
		check(write(fd2, page, 2048) == 2048, "write scratch");
	check(close(fd2) == 0 && unlink(scratch) == 0, "scratch");
	/* Last: a duplicate shares the offset, so from here on nothing is buffered. */
	check(write(fd, "before-dup", 10) == 10, "write before dup");
	fd2 = dup(fd);
	check(fd2 >= 0, "dup");
	check(write(fd, "a", 1) == 1 && write(fd2, "b", 1) == 1 && write(fd, "c", 1) == 1, "dup writes");
	check(close(fd2) == 0, "close dup");
	check(close(fd) == 0, "close");
	tick.it_value.tv_usec = tick.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &tick, NULL);

	fd = open(argv[1], O_RDONLY);
	check(fd >= 0, "reopen");
	for (;;) {
		ssize_t n = read(fd, page, sizeof(page));

		check(n >= 0, "read");
		if (n == 0)
			break;
		for (i = 0; i < n; i++)
			sum = sum * 31 + (unsigned char)page[i];
	}
	check(fstat(fd, &st) == 0, "fstat end");
	printf("size %lld checksum %llx\n", (long long)st.st_size, sum);
	return 0;
}
