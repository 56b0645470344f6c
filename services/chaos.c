/* services/chaos.c: to be written */
#include "config.h"
