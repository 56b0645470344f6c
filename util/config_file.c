/* util/config_file.c: to be written */
#include "config.h"
