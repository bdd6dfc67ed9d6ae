#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cglibc.h"

int gbn_forbid_core_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int gbn_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int gbn_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}
