/* util/log.c: to be written */
#include "config.h"
