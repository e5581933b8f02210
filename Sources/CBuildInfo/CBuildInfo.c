#include "CBuildInfo.h"

#ifndef SCREENTIME_VERSION
#define SCREENTIME_VERSION "development build"
#endif

const char *screentime_version(void) { return SCREENTIME_VERSION; }
