/* util/msgparse.c: to be written */
#include "config.h"
