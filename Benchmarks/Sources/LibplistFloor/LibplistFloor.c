#include "LibplistFloor.h"

#include <plist/plist.h>
#include <stdlib.h>

/* libplist 2.3 turned the PLIST_UINT enumerator into a macro for PLIST_INT (see Sources/CPlistShim/shim.h). */
#ifdef PLIST_UINT
#define FLOOR_LIBPLIST_2_3_OR_LATER 1
#else
#define FLOOR_LIBPLIST_2_3_OR_LATER 0
#endif

/* Where each walk's checksum goes, so that no read is dropped. */
volatile uint64_t LibplistFloor_sink;

typedef struct {
    uint64_t nodes;
    uint64_t checksum;
} Walk;

static void walk(plist_t node, Walk *w) {
    w->nodes += 1;
    switch (plist_get_node_type(node)) {
    case PLIST_BOOLEAN: {
        uint8_t v = 0;
        plist_get_bool_val(node, &v);
        w->checksum += v;
        break;
    }
    case PLIST_UINT: {
        uint64_t v = 0;
        plist_get_uint_val(node, &v);
        w->checksum += v;
        break;
    }
    case PLIST_REAL: {
        double v = 0;
        plist_get_real_val(node, &v);
        w->checksum += (uint64_t)v;
        break;
    }
    case PLIST_STRING: {
        uint64_t length = 0;
        const char *p = plist_get_string_ptr(node, &length);
        w->checksum += length + (p && length ? (uint8_t)p[0] : 0);
        break;
    }
    case PLIST_DATA: {
        uint64_t length = 0;
        const char *p = plist_get_data_ptr(node, &length);
        w->checksum += length + (p && length ? (uint8_t)p[0] : 0);
        break;
    }
    case PLIST_UID: {
        uint64_t v = 0;
        plist_get_uid_val(node, &v);
        w->checksum += v;
        break;
    }
    case PLIST_ARRAY: {
        plist_array_iter it = NULL;
        plist_array_new_iter(node, &it);
        for (;;) {
            plist_t item = NULL;
            plist_array_next_item(node, it, &item);
            if (!item) break;
            walk(item, w);
        }
        free(it);
        break;
    }
    case PLIST_DICT: {
        plist_dict_iter it = NULL;
        plist_dict_new_iter(node, &it);
        for (;;) {
            plist_t item = NULL;
            plist_dict_next_item(node, it, NULL, &item);
            if (!item) break;
            walk(item, w);
        }
        free(it);
        break;
    }
    default:
        break;
    }
}

uint64_t LibplistFloor_read(const uint8_t *bytes, size_t length) {
    plist_t root = NULL;
    plist_from_bin((const char *)bytes, (uint32_t)length, &root);
    if (!root) return 0;
    Walk w = {0, 0};
    walk(root, &w);
    plist_free(root);
    LibplistFloor_sink = w.checksum;
    return w.nodes;
}

void *LibplistFloor_parse(const uint8_t *bytes, size_t length) {
    plist_t root = NULL;
    plist_from_bin((const char *)bytes, (uint32_t)length, &root);
    return root;
}

size_t LibplistFloor_write(void *tree) {
    char *buffer = NULL;
    uint32_t length = 0;
    plist_to_bin((plist_t)tree, &buffer, &length);
#if FLOOR_LIBPLIST_2_3_OR_LATER
    plist_mem_free(buffer);
#else
    plist_to_bin_free(buffer);
#endif
    return length;
}

void LibplistFloor_free(void *tree) {
    if (tree) plist_free((plist_t)tree);
}
