/* services/localzone.c: to be written */
#include "config.h"
