#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cglibc.h"

int gbn_forbid_core_dumps(void) {
    // The soft limit alone: what the kernel checks for this process. The hard limit stays, so
    // a program started from here (a browser) may raise its own again.
    struct rlimit core;
    int failed = getrlimit(RLIMIT_CORE, &core) != 0;
    if (!failed) {
        core.rlim_cur = 0;
        failed = setrlimit(RLIMIT_CORE, &core) != 0;
    }
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || failed ? -1 : 0;
}

int gbn_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int gbn_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

void gbn_trim_heap(void) {
    malloc_trim(0);
}
