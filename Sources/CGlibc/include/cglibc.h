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
/// of the same user may attach to it or read its memory. Returns 0, or -1 with errno set.
int gbn_forbid_core_dumps(void);

#endif
