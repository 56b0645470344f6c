/* util/config_options.c: to be written */
#include "config.h"
