/* daemon/worker.c: to be written */
#include "config.h"
