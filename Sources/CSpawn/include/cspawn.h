#ifndef GBNOTIFY_CSPAWN_H
#define GBNOTIFY_CSPAWN_H

#include <spawn.h>

/// Closes every descriptor from `from` up in the child, whatever its close-on-exec flag
/// (glibc's posix_spawn_file_actions_addclosefrom_np, which its header declares only for
/// _GNU_SOURCE: defining that here would change the system types Swift sees in this module).
int gbn_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);

#endif
