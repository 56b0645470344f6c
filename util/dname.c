/* util/dname.c: to be written */
#include "config.h"
