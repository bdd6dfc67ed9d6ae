#include <sys/prctl.h>
#include "cglibc.h"

int gbn_forbid_core_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
