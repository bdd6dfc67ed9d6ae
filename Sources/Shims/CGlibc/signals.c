#define _GNU_SOURCE
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "cglibc.h"

int gbn_signal_fd(const sigset_t *mask) {
    return signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

int gbn_signal_fd_read(int descriptor) {
    struct signalfd_siginfo info;
    return read(descriptor, &info, sizeof info) == (ssize_t)sizeof info ? (int)info.ssi_signo : 0;
}

void gbn_name_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
