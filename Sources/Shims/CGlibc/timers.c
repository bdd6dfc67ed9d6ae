#include <sys/timerfd.h>
#include <time.h>
#include "cglibc.h"

int gbn_boottime_timer(void) {
    return timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
}

int gbn_boottime_timer_arm(int timer, unsigned long long deadline) {
    struct itimerspec when = {0};
    when.it_value.tv_sec = (time_t)(deadline / 1000000000ULL);
    when.it_value.tv_nsec = (long)(deadline % 1000000000ULL);
    return timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, NULL);
}

unsigned long long gbn_boottime_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (unsigned long long)now.tv_sec * 1000000000ULL + (unsigned long long)now.tv_nsec;
}
