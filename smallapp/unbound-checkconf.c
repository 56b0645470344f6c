/* smallapp/unbound-checkconf.c: to be written */
#include "config.h"
