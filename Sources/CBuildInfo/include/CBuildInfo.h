#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/* The package version ("0.1.0-1"), or "development build". The release build defines SCREENTIME_VERSION from
   packaging/debian/changelog (scripts/build-release.sh passes -Xcc -DSCREENTIME_VERSION="…"), so that the binaries
   and the package never disagree. A function rather than a macro: a macro defined on the command line is not part
   of the module Swift imports. */
const char *screentime_version(void);

#endif
