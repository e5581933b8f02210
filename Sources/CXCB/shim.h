#include <xcb/xcb.h>
#include <xcb/res.h>
#include <xcb/screensaver.h>
#include <xcb/xcb_ewmh.h>
#include <xcb/sync.h>

/* The SYNC extension's key for xcb_get_extension_data (a global of an incomplete type, which Swift can't address). */
static inline xcb_extension_t *cxcb_sync_extension(void) { return &xcb_sync_id; }
