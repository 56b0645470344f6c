/* services/listen_dnsport.c: to be written */
#include "config.h"
