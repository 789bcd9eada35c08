/* SPDX-License-Identifier: GPL-2.0 */
/* The one integer type every stage shares: counters, timestamps and file offsets. */
#ifndef VMSTAT_AUDIT_TYPES_H
#define VMSTAT_AUDIT_TYPES_H

/* 64 bits, as the kernel's u64; counters move modulo 2^64 (or 2^32, see replay_wrap()). */
typedef unsigned long long u64;

#endif
