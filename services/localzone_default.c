/* services/localzone_default.c: to be written */
#include "config.h"
