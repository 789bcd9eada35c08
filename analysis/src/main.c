// SPDX-License-Identifier: GPL-2.0
/*
 * vmstat-audit: replays a trace.dat of the vmstat tracepoints per CPU and
 * checks it exactly against the per-CPU snapshots and /proc/vmstat.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vmstat-audit [options] RUN_DIR\n"
		"       vmstat-audit [options] --trace FILE [--vmstat-before FILE --vmstat-after FILE]\n"
		"                    [--snapshot-before FILE --snapshot-after FILE]\n"
		"\n"
		"Replays the vmstat:vm_event_count/vm_event_fold events of every CPU from its tag-1\n"
		"vm_event_snapshot to its tag-2 snapshot and compares, item by item, exactly; checks\n"
		"each /proc/vmstat copy against the replayed totals at the trace markers around it.\n"
		"RUN_DIR is a directory from `make run` (trace.dat, vmstat-1.txt, vmstat-2.txt,\n"
		"snapshot-1.txt, snapshot-2.txt).\n"
		"\n"
		"  --json            print the JSON report (schema: analysis/README.md) instead of the table\n"
		"  --json-out FILE   also write the JSON report to FILE\n"
		"  --svg FILE        write a chart of counts per second per CPU for the busiest items\n"
		"  --by task         who counted: the top 10 tasks (comm[pid]) of every item between the\n"
		"                    snapshots (default: the 5 busiest items, top 3); JSON always has all\n"
		"  --reader percpu|merged|auto\n"
		"                    percpu: read each CPU's pages straight from the file, a thread per\n"
		"                    CPU (version 7 files with uncompressed data); merged: libtracecmd's\n"
		"                    iteration merged by timestamp (any file it reads); auto (default):\n"
		"                    percpu when the file allows it. Both give the same report.\n"
		"  --threads N       threads for the percpu reader (default: one per online core)\n"
		"  --progress        progress on stderr (default: when stderr is a terminal)\n"
		"  --no-progress     no progress output\n"
		"  -h, --help        this text\n"
		"\n"
		"Exit status: 0 CONSISTENT, 1 INCONSISTENT, 2 bad input, usage or a failed write,\n"
		"3 INCONCLUSIVE (data may be missing: lost events, overrun, a missing snapshot,\n"
		"marker or copy, a CPU without records), 4 internal error (a crash of vmstat-audit).\n");
}

static int bad_input(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "vmstat-audit: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return BAD_INPUT;
}

/* Out of memory anywhere: nothing was decided (exit 4), whatever was found. */
static int out_of_memory(void)
{
	fprintf(stderr, "vmstat-audit: out of memory: an allocation failed, so the audit is incomplete "
		"and nothing was decided (no verdict, no output files); run it again with more memory\n");
	return INTERNAL_ERROR;
}

static char *join(const char *dir, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

/* Reads PATH and hands it to PARSE; a failure is bad input, named by file and reason. */
static int load_text(const char *path, const char *what, void *out,
		     int (*parse)(const char *, size_t, void *, char *, size_t))
{
	char *buf = NULL, err[512];
	size_t len = 0;
	int rc;

	if (read_whole_file(path, &buf, &len, err, sizeof(err)))
		return bad_input("%s%s", err, "");
	rc = parse(buf, len, out, err, sizeof(err));
	free(buf);
	if (rc) {
		fprintf(stderr, "vmstat-audit: %s: not a %s: %s\n", path, what, err);
		return BAD_INPUT;
	}
	return 0;
}

static int parse_vmstat_any(const char *b, size_t n, void *o, char *e, size_t el)
{
	return parse_vmstat(b, n, o, e, el);
}

static int parse_snapshot_any(const char *b, size_t n, void *o, char *e, size_t el)
{
	return parse_snapshot_table(b, n, o, e, el);
}

/* A run directory's file that is not there at all (not even as a dangling symlink). */
static bool absent(const char *path)
{
	struct stat st;

	return lstat(path, &st) != 0 && errno == ENOENT;
}

/* Everything main() can leave allocated, freed on every way out. */
static struct audit a;
static char *owned[5];

static void cleanup(void)
{
	for (int k = 0; k < 2; k++) {
		free_vmstat(&a.vm[k]);
		free_snapshot_table(&a.st[k]);
		free(a.vm_status[k]);
	}
	strlist_free(&a.inconsistent);
	strlist_free(&a.inconclusive);
	strlist_free(&a.notes);
	strlist_free(&a.lost);
	replay_free(&a.r);
	trace_close(&a.t);
	if (a.report_copy)
		fclose(a.report_copy);
	a.report_copy = NULL;
	for (int k = 0; k < 5; k++)
		free(owned[k]);
}

/* The report for standard output, made beforehand in a temporary file. */
static void copy_report(const struct audit *au, FILE *out)
{
	char buf[65536];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), au->report_copy)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
}

/* Writes one report; a write error (ENOSPC on flush included) is bad output, exit 2. */
static int write_report(const char *path, FILE *f, void (*report)(const struct audit *, FILE *))
{
	bool failed;
	int e = 0;

	report(&a, f);
	failed = ferror(f) != 0;
	if (failed)
		e = errno;
	if (f == stdout) {
		if (fflush(f)) {
			failed = true;
			e = errno;
		}
	} else if (fclose(f)) {
		failed = true;
		e = errno;
	}
	if (failed)
		return bad_input("%s: cannot write: %s", path, e ? strerror(e) : "write error");
	return 0;
}

/*
 * An output file is written beside its place under a temporary name, and renamed only when
 * every output has been written: a failed --svg leaves no --json-out that says CONSISTENT.
 * A path that exists and is not a regular file (/dev/full, a FIFO) is written directly.
 */
struct output {
	const char *path;
	char *tmp;		/* NULL: written directly */
};

static int write_file_report(struct output *o, void (*report)(const struct audit *, FILE *))
{
	struct stat st;
	FILE *f;
	int fd;

	if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		f = fopen(o->path, "w");
		if (!f)
			return bad_input("%s: cannot write: %s", o->path, strerror(errno));
		return write_report(o->path, f, report);
	}
	if (asprintf(&o->tmp, "%s.partial-XXXXXX", o->path) < 0) {
		o->tmp = NULL;
		return bad_input("out of memory%s%s", "", "");
	}
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(o->tmp);
		o->tmp = NULL;
		return bad_input("%s: cannot write: %s", o->path, strerror(e));
	}
	fchmod(fd, 0644);
	return write_report(o->path, f, report);
}

static void discard_outputs(struct output *o, int n)
{
	for (int k = 0; k < n; k++) {
		if (o[k].tmp)
			unlink(o[k].tmp);
		free(o[k].tmp);
		o[k].tmp = NULL;
	}
}

static int commit_outputs(struct output *o, int n)
{
	for (int k = 0; k < n; k++) {
		if (o[k].tmp && rename(o[k].tmp, o[k].path)) {
			int e = errno;

			discard_outputs(o, n);
			return bad_input("%s: cannot write: %s", o[k].path, strerror(e));
		}
		free(o[k].tmp);
		o[k].tmp = NULL;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "vmstat-before", required_argument, NULL, 'b' },
		{ "vmstat-after", required_argument, NULL, 'a' },
		{ "snapshot-before", required_argument, NULL, 'B' },
		{ "snapshot-after", required_argument, NULL, 'A' },
		{ "json", no_argument, NULL, 'j' },
		{ "json-out", required_argument, NULL, 'J' },
		{ "svg", required_argument, NULL, 's' },
		{ "reader", required_argument, NULL, 'r' },
		{ "by", required_argument, NULL, 'y' },
		{ "threads", required_argument, NULL, 'T' },
		{ "progress", no_argument, NULL, 'p' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *paths[5] = { NULL };	/* trace, vmstat 1, vmstat 2, snapshot 1, snapshot 2 */
	const char *svg = NULL, *json_out = NULL;
	int json = 0, progress = isatty(STDERR_FILENO), c, rc = 0, threads = 0;
	enum trace_reader reader = READER_AUTO;
	char *end;
	char err[512];

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': paths[0] = optarg; break;
		case 'b': paths[1] = optarg; break;
		case 'a': paths[2] = optarg; break;
		case 'B': paths[3] = optarg; break;
		case 'A': paths[4] = optarg; break;
		case 'j': json = 1; break;
		case 'J': json_out = optarg; break;
		case 's': svg = optarg; break;
		case 'r':
			if (!strcmp(optarg, "percpu"))
				reader = READER_PERCPU;
			else if (!strcmp(optarg, "merged"))
				reader = READER_MERGED;
			else if (!strcmp(optarg, "auto"))
				reader = READER_AUTO;
			else
				return bad_input("--reader %s: give percpu, merged or auto%s", optarg, "");
			break;
		case 'T':
			errno = 0;
			threads = (int)strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || threads < 1 || threads > 1024)
				return bad_input("--threads %s: give a number from 1 to 1024%s", optarg, "");
			break;
		case 'y':
			if (strcmp(optarg, "task"))
				return bad_input("--by %s: only --by task is known%s", optarg, "");
			a.by_task = true;
			break;
		case 'p': progress = 1; break;
		case 'P': progress = 0; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return BAD_INPUT;
		}
	}
	if (optind < argc) {
		const char *dir = argv[optind++];
		static const char *const names[5] = {
			"trace.dat", "vmstat-1.txt", "vmstat-2.txt", "snapshot-1.txt", "snapshot-2.txt",
		};
		struct stat st;

		if (paths[0])
			return bad_input("give a RUN_DIR or --trace, not both%s%s", "", "");
		if (stat(dir, &st))
			return bad_input("%s: %s (give a run directory from `make run`, or --trace FILE)", dir,
					 strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return bad_input("%s: not a directory, %s (give a run directory from `make run`, "
					 "or --trace FILE)", dir, S_ISREG(st.st_mode) ? "a regular file"
									: file_kind(st.st_mode));
		/* Every file of a run directory is required: a check skipped is not a check passed. */
		for (int k = 0; k < 5; k++) {
			owned[k] = join(dir, names[k]);
			if (!owned[k])
				return bad_input("out of memory%s%s", "", "");
			if (!paths[k])
				paths[k] = owned[k];
			if (paths[k] == owned[k] && absent(paths[k]))
				return bad_input("%s: missing: a run directory from `make run` holds trace.dat, "
						 "vmstat-1.txt, vmstat-2.txt, snapshot-1.txt and snapshot-2.txt%s",
						 paths[k], "");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vmstat-audit: unexpected argument '%s' (see --help)\n", argv[optind]);
		return BAD_INPUT;
	}
	if (!paths[0]) {
		fprintf(stderr, "vmstat-audit: no input: give a RUN_DIR or --trace FILE (see --help)\n");
		return BAD_INPUT;
	}

	for (int k = 0; k < 2; k++) {
		if (paths[1 + k]) {
			rc = load_text(paths[1 + k], "/proc/vmstat copy", &a.vm[k], parse_vmstat_any);
			if (rc)
				return rc;
			a.have_vm[k] = true;
			a.vm_path[k] = paths[1 + k];
		}
		if (paths[3 + k]) {
			rc = load_text(paths[3 + k], "vmstat snapshot table", &a.st[k], parse_snapshot_any);
			if (rc)
				return rc;
			if (a.st[k].tag != (unsigned int)(k + 1)) {
				fprintf(stderr, "vmstat-audit: %s: line 1: tag %u, expected tag %d (%s)\n",
					paths[3 + k], a.st[k].tag, k + 1,
					a.st[k].tag == (unsigned int)(2 - k) ? "the two snapshot tables swapped?"
									      : "not the table of this snapshot");
				return BAD_INPUT;
			}
			a.have_st[k] = true;
			a.st_path[k] = paths[3 + k];
		}
	}
	rc = open_regular(paths[0], err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "vmstat-audit: %s\n", err);
		return BAD_INPUT;
	}
	close(rc);
	rc = 0;
	if (trace_open(&a.t, paths[0], err, sizeof(err))) {
		fprintf(stderr, "vmstat-audit: %s\n", err);
		return BAD_INPUT;
	}
	if (replay_init(&a.r, a.t.ncpus, a.t.nitems)) {
		fprintf(stderr, "vmstat-audit: out of memory for %d CPUs x %d items\n", a.t.ncpus, a.t.nitems);
		return BAD_INPUT;
	}
	if (trace_replay(&a.t, &a.r, reader, threads, progress, err, sizeof(err))) {
		fprintf(stderr, "vmstat-audit: %s\n", err);
		return BAD_INPUT;
	}
	if (audit_check_inputs(&a, err, sizeof(err))) {
		fprintf(stderr, "vmstat-audit: %s\n", err);
		return BAD_INPUT;
	}
	audit_evaluate(&a);
	if (oom_seen())
		return out_of_memory();

	/*
	 * The files first: nothing says VERDICT before every requested output is written. The
	 * report for standard output is made first in a temporary file, so that an allocation
	 * failing while it is made leaves no verdict on standard output.
	 */
	{
		struct output outs[2] = { { json_out, NULL }, { svg, NULL } };
		FILE *so = tmpfile();

		if (!so) {
			if (errno == ENOMEM)
				oom_note();
			if (oom_seen())
				return out_of_memory();
			return bad_input("a temporary file for the report: %s%s", strerror(errno), "");
		}
		(json ? report_json : report_text)(&a, so);
		if (ferror(so) || fflush(so) || fseek(so, 0, SEEK_SET)) {
			fclose(so);
			return bad_input("a temporary file for the report: %s%s", strerror(errno), "");
		}
		if ((json_out && write_file_report(&outs[0], report_json)) ||
		    (svg && write_file_report(&outs[1], report_svg))) {
			discard_outputs(outs, 2);
			fclose(so);
			return oom_seen() ? out_of_memory() : BAD_INPUT;
		}
		if (oom_seen()) {
			discard_outputs(outs, 2);
			fclose(so);
			return out_of_memory();
		}
		if (commit_outputs(outs, 2)) {
			fclose(so);
			return BAD_INPUT;
		}
		a.report_copy = so;
	}
	if (write_report("standard output", stdout, copy_report))
		return BAD_INPUT;
	return (int)a.verdict;
}

/*
 * libtraceevent 1.7's kbuffer crashes on some corrupt sub-buffers (found by
 * our fuzzer). The audit therefore runs in a child. The child marks, in
 * memory shared with us, when it is inside a libtracecmd/libtraceevent call
 * (trace_where): a child that dies there read a file those libraries cannot
 * read (bad input, exit 2); one that dies anywhere else died in our own code,
 * reported as an internal error (exit 4) with its signal. The child dies with
 * us (PR_SET_PDEATHSIG), and SIGTERM/SIGINT/SIGHUP/SIGQUIT sent to us are
 * passed on to it. VMSTAT_AUDIT_NO_FORK=1 runs it in-process (for debuggers).
 */
static volatile sig_atomic_t child_pid, forwarded;

static void forward(int sig)
{
	forwarded = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

int main(int argc, char **argv)
{
	static const int passed_on[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	struct trace_where *where;
	struct sigaction sa;
	int rc, status;
	pid_t pid, parent = getpid();

	if (getenv("VMSTAT_AUDIT_NO_FORK")) {
		rc = run(argc, argv);
		cleanup();
		if (fflush(NULL))
			rc = BAD_INPUT;
		if (oom_seen() && rc != INTERNAL_ERROR)
			rc = out_of_memory();
		return rc;
	}
	where = mmap(NULL, sizeof(*where), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (where == MAP_FAILED) {
		fprintf(stderr, "vmstat-audit: cannot map memory shared with the audit process: %s\n",
			strerror(errno));
		return INTERNAL_ERROR;
	}
	memset(where, 0, sizeof(*where));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "vmstat-audit: cannot start the audit process: %s\n", strerror(errno));
		return INTERNAL_ERROR;
	}
	if (pid == 0) {
		/* Die with the parent, even if it died before this line. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(INTERNAL_ERROR);
		signal(SIGPIPE, SIG_IGN);	/* a closed pipe is a write error, reported */
		trace_where = where;
		rc = run(argc, argv);
		cleanup();
		if (fflush(NULL))
			rc = BAD_INPUT;
		if (oom_seen() && rc != INTERNAL_ERROR)
			rc = out_of_memory();
		where->result = rc;
		where->done = 1;
		_exit(rc);
	}
	child_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < sizeof(passed_on) / sizeof(passed_on[0]); k++)
		sigaction(passed_on[k], &sa, NULL);
	while ((rc = (int)waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (rc != pid) {
		fprintf(stderr, "vmstat-audit: lost track of the audit process: %s\n", strerror(errno));
		return INTERNAL_ERROR;
	}
	if (forwarded && WIFSIGNALED(status) && WTERMSIG(status) == forwarded) {
		/* Killed on our behalf: die of the same signal. */
		signal(forwarded, SIG_DFL);
		raise(forwarded);
	}
	/* Only the status the audit itself chose: a sanitizer's exit 1 is not INCONSISTENT. */
	if (WIFEXITED(status) && where->done && WEXITSTATUS(status) == where->result &&
	    where->result >= CONSISTENT && where->result <= INTERNAL_ERROR)
		return WEXITSTATUS(status);
	/* Not a crash: killed from outside (the OOM killer's SIGKILL, a signal sent to the child). */
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGSEGV && WTERMSIG(status) != SIGBUS &&
	    WTERMSIG(status) != SIGABRT && WTERMSIG(status) != SIGFPE && WTERMSIG(status) != SIGILL &&
	    WTERMSIG(status) != SIGTRAP && WTERMSIG(status) != SIGSYS) {
		fprintf(stderr, "vmstat-audit: the audit process was killed by signal %d (%s), not by a "
			"fault: out of memory (the OOM killer?) or a signal sent to it; nothing was "
			"decided, run it again\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
		return INTERNAL_ERROR;
	}
	if (where->inside) {
		where->call[sizeof(where->call) - 1] = '\0';
		if (WIFSIGNALED(status))
			fprintf(stderr, "vmstat-audit: reading the trace crashed libtracecmd/libtraceevent in "
				"%s() (signal %d, %s): the file is corrupt\n", where->call, WTERMSIG(status),
				strsignal(WTERMSIG(status)));
		else
			fprintf(stderr, "vmstat-audit: reading the trace failed inside libtracecmd/"
				"libtraceevent in %s() (exit status %d, a sanitizer report?): the file is "
				"corrupt\n", where->call, WEXITSTATUS(status));
		return BAD_INPUT;
	}
	if (WIFSIGNALED(status))
		fprintf(stderr, "vmstat-audit: internal error: the audit process died in vmstat-audit's own "
			"code (outside the trace libraries) of signal %d (%s): a bug in vmstat-audit; "
			"please report it with the input files\n", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "vmstat-audit: internal error: the audit process exited with status %d in "
			"vmstat-audit's own code (a sanitizer report?): a bug in vmstat-audit; please "
			"report it with the input files\n", WEXITSTATUS(status));
	return INTERNAL_ERROR;
}
