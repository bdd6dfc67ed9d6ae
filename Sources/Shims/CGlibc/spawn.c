#define _GNU_SOURCE
#include <spawn.h>
#include "cglibc.h"

int gbn_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
