// libgcrypt: already loaded by every process that uses libsystemd, which links it.
#include <gcrypt.h>
