/* util/net_help.c: to be written */
#include "config.h"
