#include <locale.h>
#include "cglibc.h"

locale_t gbn_messages_locale(void) {
    return newlocale(LC_MESSAGES_MASK, "", (locale_t)0);
}
