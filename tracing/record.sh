#!/bin/sh
# The recording protocol, run in the guest by the job scripts/run leaves on the share.
# Every parameter is here, with its default; the host overrides them through the environment.
#
# Sequence: swap on -> trace-cmd record starts -> settle -> snapshot 1 -> /proc/vmstat copy 1
# (between two trace markers) -> stress -> snapshot 2 -> /proc/vmstat copy 2 (between markers)
# -> trace-cmd stops. Everything lands in $OUT.

OUT=${OUT:-/share}
DURATION=${DURATION:-30}            # seconds of stress
BUFFER_KB=${BUFFER_KB:-16384}       # ring buffer per CPU; the overrun scenario makes it tiny
# "global" orders events across CPUs (a single clock, serialised); "local" (per-CPU TSC) does
# not and this guest's TSC is marked unstable anyway. The audit refuses clocks it cannot trust.
CLOCK=${CLOCK:-global}
# trace-cmd 3.1.6's default file (version 7, zstd) from this guest does not read on the host.
FILE_OPTS=${FILE_OPTS:---compression none}
# read(2), not splice(2): under the stress's memory pressure the splice path's per-call
# ring_buffer_alloc_read_page() (GFP_NORETRY) fails and trace-cmd stops reading that CPU,
# which then overruns. read(2) allocates its spare page once.
READ_OPTS=${READ_OPTS:---nosplice}
# Real-time priority of trace-cmd's per-CPU readers (SCHED_FIFO): the stress keeps every CPU
# busy, and a reader that waits for a time slice lets its buffer fill. 0: normal priority.
RECORDER_PRIO=${RECORDER_PRIO:-50}
# How full a CPU's ring buffer must be before poll() wakes its reader. The kernel's default,
# 50, keeps every buffer half full all the time (trace-cmd polls before each read), so any
# burst over the other half overruns it. 1: the reader drains at 1% and keeps the margin.
BUFFER_PERCENT=${BUFFER_PERCENT:-1}
# The readers' writes to the 9p share are batched (1 MiB) and trace-cmd is locked in memory:
# 4 KiB 9p writes move 8 MB/s in this guest, the stress produces 6 MB/s of events.
# 0: trace-cmd as shipped (the readers then fall behind when the host is busy).
PRELOAD=${PRELOAD:-1}
EVENTS=${EVENTS:-vmstat:vm_event_count vmstat:vm_event_fold vmstat:vm_event_untraced vmstat:vm_event_snapshot}
WATCH_MS=${WATCH_MS:-20}            # ring buffer fill sampling interval (ringwatch)
DRAIN_TIMEOUT=${DRAIN_TIMEOUT:-120} # seconds the readers get to catch up before trace-cmd stops
SETTLE=${SETTLE:-1}                 # seconds between enabling the events and snapshot 1
PIN_PROBES=${PIN_PROBES:-1}         # 1: no code patching at trace-cmd's start and stop (below)
HOTPLUG=${HOTPLUG:-0}               # 1: take CPUs offline and online again during the stress
INJECT=${INJECT:-0}                 # N > 0: drop every Nth traced update (positive control)
HOG_MB=${HOG_MB:-auto}              # the stress hog's size; auto: 1.5 x guest RAM
SWAP_MB=${SWAP_MB:-auto}            # zram swap size; auto: guest RAM; 0: no swap
WORKERS=${WORKERS:-0}               # stress workers; 0: one per online CPU
# The workload between the snapshots: any command line (sh -c). It runs in its own session
# with the OOM killer allowed to pick it, and is stopped (TERM, KILL 5 s later) when it
# outlives WORKLOAD_LIMIT seconds (default: DURATION; DURATION + 60 for the default vmstress,
# which stops itself). Its exit status never fails the recording: it goes to
# $OUT/workload-status.txt and the host reports it beside the audit.
WORKLOAD=${WORKLOAD:-${STRESS:-}}   # default: vmstress with the parameters above
WORKLOAD_LIMIT=${WORKLOAD_LIMIT:-}
# Guest commands run before the recording starts (a scenario's knobs: sysctls, mounts,
# insmod of a module the host left on the share). A failing SETUP fails the run.
SETUP=${SETUP:-}
# 1: record an empty /proc/kallsyms. Only for the small committed fixtures of analysis/tests:
# the audit needs no symbols, and kallsyms is most of an otherwise tiny trace.dat.
HIDE_KALLSYMS=${HIDE_KALLSYMS:-0}

TRACING=/sys/kernel/tracing
VMSTAT_DBG=/sys/kernel/debug/vmstat
log() { echo "record: $*"; }
fail() { echo "record: error: $*" >&2; exit 1; }
marker() { echo "percpu-vmstat: $*" >"$TRACING/trace_marker"; }

[ -w "$VMSTAT_DBG/snapshot" ] || fail "$VMSTAT_DBG/snapshot missing: kernel without CONFIG_VM_EVENT_TRACING?"
[ -d "$TRACING/events/vmstat" ] || fail "no vmstat events in $TRACING: kernel without the series?"
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
[ "$HOG_MB" = auto ] && HOG_MB=$((mem_mb * 3 / 2))
[ "$SWAP_MB" = auto ] && SWAP_MB=$mem_mb
if [ -z "$WORKLOAD" ]; then
	WORKLOAD="vmstress --duration $DURATION --workers $WORKERS --hog-mb $HOG_MB --verbose"
	: "${WORKLOAD_LIMIT:=$((DURATION + 60))}"
fi
: "${WORKLOAD_LIMIT:=$DURATION}"
echo -1000 >/proc/self/oom_score_adj

# The kernel turns THP off by default below 512 MB of RAM (hugepage_init()); the stress wants
# huge page faults, splits and the huge zero page among its events.
THP=/sys/kernel/mm/transparent_hugepage
[ -w "$THP/enabled" ] && echo always >"$THP/enabled" && echo always >"$THP/defrag"
if [ -n "$SETUP" ]; then
	log "setup: $SETUP"
	sh -ec "$SETUP" || fail "SETUP failed (exit $?): $SETUP"
fi

if [ "$SWAP_MB" -gt 0 ] && [ -e /sys/block/zram0/disksize ]; then
	echo "${SWAP_MB}M" >/sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
		swapon /dev/zram0 && log "zram swap: ${SWAP_MB} MB"
fi

cat >"$OUT/record.env" <<ENV
DURATION=$DURATION
BUFFER_KB=$BUFFER_KB
CLOCK=$CLOCK
FILE_OPTS=$FILE_OPTS
READ_OPTS=$READ_OPTS
RECORDER_PRIO=$RECORDER_PRIO
PRELOAD=$PRELOAD
BUFFER_PERCENT=$BUFFER_PERCENT
EVENTS=$EVENTS
SETTLE=$SETTLE
PIN_PROBES=$PIN_PROBES
WATCH_MS=$WATCH_MS
HOTPLUG=$HOTPLUG
INJECT=$INJECT
HOG_MB=$HOG_MB
SWAP_MB=$SWAP_MB
WORKERS=$WORKERS
WORKLOAD=$WORKLOAD
WORKLOAD_LIMIT=$WORKLOAD_LIMIT
SETUP=$SETUP
GUEST_MEM_MB=$mem_mb
GUEST_CPUS_ONLINE=$(nproc)
GUEST_KERNEL=$(uname -r)
ENV

if [ "$HIDE_KALLSYMS" = 1 ]; then
	: >/tmp/kallsyms.empty
	mount --bind /tmp/kallsyms.empty /proc/kallsyms || fail "cannot hide /proc/kallsyms"
fi

event_args=
for e in $EVENTS; do event_args="$event_args -e $e"; done
echo "$BUFFER_PERCENT" >"$TRACING/buffer_percent" || fail "cannot set buffer_percent to $BUFFER_PERCENT"
# Enabling or disabling an event rewrites code with text_poke_bp(): its static key's sites
# (~155 for vm_event_count) when its first probe comes or its last goes, and its static_call
# site when the count of probes moves between 1 and 2 (a direct call to one probe, the
# iterator for more). trace-cmd also registers the comm-recording probes on sched_switch and
# sched_wakeup. Under QEMU 7.2's multi-threaded TCG a vCPU can execute an int3 such a rewrite
# already replaced; kprobes' recovery (CONFIG_KPROBES) survives a single stale trap, but a vCPU
# that keeps executing its stale copy, in __schedule with interrupts off, never answers the
# patcher's IPI and the guest hangs (seen once in ~30 boots, at trace-cmd's stop).
# PIN_PROBES=1 holds every tracepoint trace-cmd touches at two probes or more for the whole
# run: two tracing instances, recording off, enable the events, and the first also
# sched_switch and sched_wakeup (its comm recording adds the sched probes, which trace-cmd's
# then only count). trace-cmd's start and stop then move 2 probes to 3 and back: the static
# keys stay on, the static_call stays the iterator (static_call_update() to the same function
# is a no-op), and no code is rewritten while the workload runs. The cost: two more probe
# calls, each refused at once by an instance whose recording is off, per event.
if [ "$PIN_PROBES" = 1 ]; then
	for inst in percpu-vmstat-pin1 percpu-vmstat-pin2; do
		d=$TRACING/instances/$inst
		{ mkdir -p "$d" && echo 0 >"$d/tracing_on" && echo 4 >"$d/buffer_size_kb"; } ||
			fail "cannot create the tracing instance $d"
		for e in $EVENTS; do
			echo 1 >"$d/events/${e%%:*}/${e#*:}/enable" || fail "cannot enable $e in $d"
		done
	done
	for e in sched_switch sched_wakeup; do
		echo 1 >"$TRACING/instances/percpu-vmstat-pin1/events/sched/$e/enable" ||
			fail "cannot enable sched:$e in percpu-vmstat-pin1"
	done
	log "probes pinned: two instances hold the events (PIN_PROBES=1)"
fi
preload=
[ "$PRELOAD" = 1 ] && preload=/usr/lib/percpu-vmstat/recorder_preload.so
prio=
[ "$RECORDER_PRIO" -gt 0 ] && prio="-r $RECORDER_PRIO"
# shellcheck disable=SC2086 # FILE_OPTS and event_args are lists of words
LD_PRELOAD=$preload trace-cmd record $FILE_OPTS $READ_OPTS $prio -C "$CLOCK" -b "$BUFFER_KB" $event_args -o "$OUT/trace.dat" \
	>"$OUT/trace-cmd.log" 2>&1 &
tc=$!
# trace-cmd is recording once the events are enabled and tracing is on.
i=0
until [ "$(cat "$TRACING/events/vmstat/vm_event_count/enable")" = 1 ] &&
	[ "$(cat "$TRACING/tracing_on")" = 1 ]; do
	i=$((i + 1))
	[ $i -le 300 ] || { kill "$tc"; fail "trace-cmd did not start in 30 s (see trace-cmd.log)"; }
	kill -0 "$tc" 2>/dev/null || fail "trace-cmd exited at start: $(tail -n 3 "$OUT/trace-cmd.log")"
	sleep 0.1
done
log "recording: clock $CLOCK, $BUFFER_KB KB per CPU, events: $EVENTS"
# The margin: each CPU's largest unread backlog over the recording, and the final counters.
ringwatch --interval-ms "$WATCH_MS" --series "$OUT/ringwatch-series.txt" "$OUT/ringwatch.txt" &
watch=$!
sleep "$SETTLE"

snapshot() {
	echo "$1" >"$VMSTAT_DBG/snapshot"
	cat "$VMSTAT_DBG/snapshot" >"$OUT/snapshot-$1.txt"
	marker "vmstat-$1 begin"
	cat /proc/vmstat >"$OUT/vmstat-$1.txt"
	marker "vmstat-$1 end"
}

snapshot 1
log "snapshot 1 taken; running: $WORKLOAD"

# The positive control: the fault-injection framework's fail_vm_event_update (added by the
# test-only patch of patches/KERNEL/testing/, outside the series) fails every INJECT-th traced update (interval INJECT,
# probability 100, no limit on times; it never prints); lost_delta is the shortfall the audit
# must find. Each write is checked: a write that failed would leave the default times=1, one
# drop, and a test still passing.
FAIL_DBG=/sys/kernel/debug/fail_vm_event_update
if [ "$INJECT" -gt 0 ]; then
	[ -w "$FAIL_DBG/interval" ] || fail "INJECT=$INJECT but the kernel has no CONFIG_FAIL_VM_EVENT_UPDATE (patches/config/fault-injection.config)"
	if ! before=$(cat "$FAIL_DBG/lost_delta") || ! before_n=$(cat "$FAIL_DBG/lost_updates"); then
		fail "cannot read $FAIL_DBG/lost_delta or lost_updates"
	fi
	for kv in times=-1 interval="$INJECT" probability=100; do
		echo "${kv#*=}" >"$FAIL_DBG/${kv%%=*}" || fail "cannot write ${kv#*=} to $FAIL_DBG/${kv%%=*}"
	done
fi

# CPU hotplug: cycle every CPU but 0 offline and online again until the stress ends (at least
# one full cycle), so that vm_events_fold_cpu() moves counts between CPUs mid-trace.
hotplug_pid=
if [ "$HOTPLUG" = 1 ]; then
	rm -f /tmp/hotplug.stop
	(
		cycles=0
		while [ "$cycles" = 0 ] || [ ! -e /tmp/hotplug.stop ]; do
			for c in /sys/devices/system/cpu/cpu[1-9]*; do
				[ -w "$c/online" ] || continue
				echo 0 >"$c/online" 2>/dev/null && cycles=$((cycles + 1))
				sleep 0.2
				echo 1 >"$c/online" 2>/dev/null
				sleep 0.2
			done
		done
		echo "$cycles" >"$OUT/hotplug-cycles.txt"
	) &
	hotplug_pid=$!
fi

# The workload in a session of its own (setsid: its process group is its pid), so that the
# watchdog can stop everything it started; oom_score_adj back to 0 from this script's -1000.
oom_kills() { awk '$1 == "oom_kill" {print $2}' /proc/vmstat; }	# exact, memcg kills too
oom_before=$(oom_kills)
rm -f /tmp/workload.stopped
# shellcheck disable=SC2016 # $1 is expanded by the inner sh
setsid sh -c 'echo 0 >/proc/self/oom_score_adj; exec sh -c "$1"' workload "$WORKLOAD" &
wl=$!
: >"$OUT/workload-started"	# the host's scenario hook (scripts/run) waits for this
(
	sleep "$WORKLOAD_LIMIT"
	kill -0 "$wl" 2>/dev/null || exit 0
	: >/tmp/workload.stopped
	kill -TERM -"$wl" 2>/dev/null
	sleep 5
	kill -KILL -"$wl" 2>/dev/null
) &
watchdog=$!
# Progress on the console (scripts/boot shows its last line every 15 s): seconds of DURATION.
(
	t=0
	while sleep 10; do
		t=$((t + 10))
		log "workload running: ${t} of ${DURATION} s$([ "$t" -gt "$DURATION" ] && echo ", past DURATION: it may run up to ${WORKLOAD_LIMIT} s")"
	done
) &
ticker=$!
stress_rc=0
wait "$wl" || stress_rc=$?
kill "$watchdog" 2>/dev/null
kill "$ticker" 2>/dev/null
kill -KILL -"$wl" 2>/dev/null	# whatever it left running in the background
oom_kills=$(($(oom_kills) - oom_before))
if [ -e /tmp/workload.stopped ]; then
	status="stopped after its limit of ${WORKLOAD_LIMIT}s (exit $stress_rc)"
elif [ "$stress_rc" -eq 0 ]; then
	status="exited 0"
elif [ "$stress_rc" -eq 127 ]; then
	status="not found (exit 127): a command of the workload is not in the guest (GUEST_TOOLS?)"
elif [ "$stress_rc" -gt 128 ]; then
	status="killed by signal $((stress_rc - 128))"
else
	status="exited $stress_rc"
fi
[ "$oom_kills" -gt 0 ] && status="$status; the OOM killer killed $oom_kills process(es) (last in the kernel log: $(dmesg | grep 'Killed process' | tail -n "$oom_kills" | sed 's/.*Killed process \([0-9]*\) (\([^)]*\)).*/\2[\1]/' | tr '\n' ' '))"
echo "$status" >"$OUT/workload-status.txt"
log "workload $status"
if [ -n "$hotplug_pid" ]; then
	touch /tmp/hotplug.stop
	wait "$hotplug_pid"
	log "hotplug: $(cat "$OUT/hotplug-cycles.txt") offline/online cycles"
fi
for c in /sys/devices/system/cpu/cpu[1-9]*; do
	[ -w "$c/online" ] && echo 1 >"$c/online" 2>/dev/null
done

if [ "$INJECT" -gt 0 ]; then
	echo 0 >"$FAIL_DBG/probability" || fail "cannot switch the injection off"
fi

snapshot 2
log "snapshot 2 taken; stopping trace-cmd"
# Read after snapshot 2, not before: a CPU that saw probability 100 may still be inside its
# interrupts-off update, its drop not yet counted. The snapshot's IPI runs on every CPU only
# after such a section ends, so every drop it includes is counted by now.
if [ "$INJECT" -gt 0 ]; then
	if ! after=$(cat "$FAIL_DBG/lost_delta") || ! after_n=$(cat "$FAIL_DBG/lost_updates"); then
		fail "cannot read $FAIL_DBG/lost_delta or lost_updates"
	fi
	echo $((after - before)) >"$OUT/injected-lost-delta.txt"
	echo $((after_n - before_n)) >"$OUT/injected-lost-updates.txt"
	log "injected: $((after_n - before_n)) updates dropped, $((after - before)) counts lost"
fi
# A reader that is behind at the stop can lose the end of its CPU: in runs where one lagged at
# SIGINT (its 9p writes slowed by a busy host), that CPU's data ended before its second
# snapshot and the audit could only say INCONCLUSIVE. report --stat had 31,605 to 464,677
# events unread in those runs, 0 in every CONSISTENT one; trace-cmd reads those stats after
# turning tracing off and before its readers' final flush (record_trace(): stop_threads(),
# record_stats(), wait_threads()), so they measure the backlog at the stop, and why the flush
# did not recover it is not settled. So before the stop every CPU's unread bytes must come
# down to what its reader waits for anyway (BUFFER_PERCENT of the buffer, plus a page):
# DRAIN_TIMEOUT seconds at most, then the stop goes ahead and the audit finds what is missing.
drain_readers() {
	limit=$((BUFFER_KB * 1024 * BUFFER_PERCENT / 100 + 4096))
	start=$(date +%s)
	while :; do
		behind=''
		for stats in "$TRACING"/per_cpu/cpu*/stats; do
			bytes=$(sed -n 's/^bytes: //p' "$stats")
			cpu=${stats%/stats}
			[ "${bytes:-0}" -le "$limit" ] || behind="$behind ${cpu##*/}:$bytes"
		done
		waited=$(($(date +%s) - start))
		if [ -z "$behind" ]; then
			[ "$waited" -eq 0 ] || log "readers caught up in ${waited}s"
			return
		fi
		if [ "$waited" -ge "$DRAIN_TIMEOUT" ]; then
			log "readers still behind after ${waited}s (unread bytes:$behind); stopping anyway"
			return
		fi
		sleep 1
	done
}
drain_readers
kill -INT "$tc"
wait "$tc"
tc_rc=$?
kill -TERM "$watch"
wait "$watch" || log "ringwatch failed: the ring buffer margin is unknown"
swapoff /dev/zram0 2>/dev/null
[ "$tc_rc" -eq 0 ] || fail "trace-cmd record exited with $tc_rc: $(tail -n 3 "$OUT/trace-cmd.log")"
# trace-cmd ignores its readers' exit status: a reader whose buffered data could not be
# written says so in this log, and the recording is then short, never to be audited.
! grep -q '^recorder_preload: error:' "$OUT/trace-cmd.log" ||
	fail "a trace reader lost data: $(grep -m1 '^recorder_preload: error:' "$OUT/trace-cmd.log")"
log "done"
