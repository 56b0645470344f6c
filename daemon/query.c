/* daemon/query.c: to be written */
#include "config.h"
