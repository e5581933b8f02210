/* A C target needs a source file; everything it offers is in include/CBuildInfo.h. */
#include "CBuildInfo.h"
