/* daemon/unbound.c: to be written */
#include "config.h"
