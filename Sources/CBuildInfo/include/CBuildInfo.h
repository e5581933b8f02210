#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/* The package version. The release build defines it from packaging/debian/changelog (scripts/build-release.sh passes
   -Xcc -DSCREENTIME_VERSION="…"), so the binaries and the package never disagree; other builds are development
   builds. */
#ifndef SCREENTIME_VERSION
#define SCREENTIME_VERSION "development build"
#endif

#endif
