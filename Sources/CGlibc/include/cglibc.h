#ifndef GBNOTIFY_CGLIBC_H
#define GBNOTIFY_CGLIBC_H

/*
 * glibc calls that Swift's Glibc module does not declare. Their headers need _GNU_SOURCE or
 * are not part of the module; defining _GNU_SOURCE here would change the system types Swift
 * sees, so each call is wrapped in a C file of its own.
 */

#include <spawn.h>

/// Closes every descriptor from `from` up in the child, whatever its close-on-exec flag
/// (glibc's posix_spawn_file_actions_addclosefrom_np).
int gbn_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);

/// Makes the process undumpable (prctl PR_SET_DUMPABLE 0): no core file, and no other process
/// of the same user may attach to it or read its memory; and sets its soft RLIMIT_CORE to 0, so
/// that no core is written even where the system dumps undumpable processes (suid_dumpable 2).
/// Returns 0, or -1 with errno set.
int gbn_forbid_core_dumps(void);

/// A timer on CLOCK_BOOTTIME, which goes on counting while the system is suspended, so a
/// deadline that passed during a suspend fires at the resume (timerfd_create). A descriptor, or
/// -1 with errno set.
int gbn_boottime_timer(void);

/// Arms `timer` to fire once at `deadline`, CLOCK_BOOTTIME nanoseconds; 0 disarms it.
int gbn_boottime_timer_arm(int timer, unsigned long long deadline);

/// CLOCK_BOOTTIME now, in nanoseconds.
unsigned long long gbn_boottime_now(void);

/// An eventfd, non-blocking and close-on-exec, for one thread to wake another in poll(2).
int gbn_wakeup_fd(void);

#endif
