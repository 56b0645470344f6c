/* util/config_parse.c: to be written */
#include "config.h"
