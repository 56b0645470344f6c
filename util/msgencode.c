/* util/msgencode.c: to be written */
#include "config.h"
