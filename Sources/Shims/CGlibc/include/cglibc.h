#ifndef GBNOTIFY_CGLIBC_H
#define GBNOTIFY_CGLIBC_H

/*
 * glibc calls that Swift's Glibc module does not declare. Their headers need _GNU_SOURCE or
 * are not part of the module; defining _GNU_SOURCE here would change the system types Swift
 * sees, so each call is wrapped in a C file of its own.
 */

#include <spawn.h>

/*
 * gettext, dgettext, dcgettext, ngettext, dngettext, bindtextdomain and
 * bind_textdomain_codeset: glibc has them built in, but its libintl.h is not part of Swift's
 * Glibc module. Declared as they are, no wrapper needed (Sources/System/Gettext uses them).
 */
#include <libintl.h>
#include <locale.h>

/// The locale the environment names for messages (LC_ALL, LC_MESSAGES, LANG), every other
/// category C's: newlocale(LC_MESSAGES_MASK, "", 0), whose mask is a macro Swift cannot import.
/// NULL, with errno set, when that locale is not installed.
locale_t gbn_messages_locale(void);

/// Closes every descriptor from `from` up in the child, whatever its close-on-exec flag
/// (glibc's posix_spawn_file_actions_addclosefrom_np).
int gbn_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);

/// Makes the process undumpable (prctl PR_SET_DUMPABLE 0): no core file, and no other process
/// of the same user may attach to it or read its memory; and sets its soft RLIMIT_CORE to 0, so
/// that no core is written even where the system dumps undumpable processes (suid_dumpable 2).
/// Returns 0, or -1 with errno set.
int gbn_forbid_core_dumps(void);

/// A descriptor for the process `pid` (pidfd_open, Linux 5.3), through which it can be signalled
/// with no risk of reaching another process that took its pid once it was reaped. A descriptor,
/// or -1 with errno set.
int gbn_pidfd_open(int pid);

/// Sends `signal` to the process of `pidfd` (pidfd_send_signal, Linux 5.1); fails with ESRCH once
/// it has ended. 0, or -1 with errno set.
int gbn_pidfd_send_signal(int pidfd, int signal);

/// A timer on CLOCK_BOOTTIME, which goes on counting while the system is suspended, so a
/// deadline that passed during a suspend fires at the resume (timerfd_create). A descriptor, or
/// -1 with errno set.
int gbn_boottime_timer(void);

/// Arms `timer` to fire once at `deadline`, CLOCK_BOOTTIME nanoseconds; 0 disarms it.
int gbn_boottime_timer_arm(int timer, unsigned long long deadline);

/// CLOCK_BOOTTIME now, in nanoseconds.
unsigned long long gbn_boottime_now(void);

#include <signal.h>

/// A signalfd for the signals in `mask`, non-blocking and close-on-exec: they are read from it
/// as records instead of running a handler (they must be blocked in every thread). A descriptor,
/// or -1 with errno set.
int gbn_signal_fd(const sigset_t *mask);

/// Reads the next signal from a signalfd: its number, or 0 when none is pending (or on error).
int gbn_signal_fd_read(int descriptor);

/// Gives the heap's free pages back to the kernel (malloc_trim(0)), wherever they lie in it.
void gbn_trim_heap(void);

/// Names the calling thread (at most 15 bytes) for ps, top and /proc/PID/task/TID/comm.
void gbn_name_thread(const char *name);

#endif
