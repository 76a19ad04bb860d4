#include "LibplistFloor.h"

#include <plist/plist.h>
#include <stdlib.h>
#include <string.h>

/* libplist 2.3 turned the PLIST_UINT enumerator into a macro for PLIST_INT (see Sources/CPlistShim/shim.h), and
 * in the same release replaced plist_to_bin_free with plist_mem_free: the macro tells the header's API at compile
 * time, so the right free is linked, not looked up. */
#ifdef PLIST_UINT
#define FLOOR_LIBPLIST_2_3_OR_LATER 1
#else
#define FLOOR_LIBPLIST_2_3_OR_LATER 0
#endif

/* Where each walk's checksum goes, so that no read is dropped. */
volatile uint64_t LibplistFloor_sink;

typedef LibplistFloor_Walk Walk;

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
    case PLIST_DATE: {
        int32_t seconds = 0, micros = 0;
        plist_get_date_val(node, &seconds, &micros);
        w->checksum += (uint32_t)seconds;
        break;
    }
    case PLIST_KEY:
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

static void free_buffer(char *buffer) {
#if FLOOR_LIBPLIST_2_3_OR_LATER
    plist_mem_free(buffer);
#else
    plist_to_bin_free(buffer);
#endif
}

uint64_t LibplistFloor_read(const uint8_t *bytes, size_t length) {
    plist_t root = NULL;
    plist_from_bin((const char *)bytes, (uint32_t)length, &root);
    if (!root) return 0;
    Walk w = {0, 0, -1};
    walk(root, &w);
    plist_free(root);
    LibplistFloor_sink = w.checksum;
    return w.nodes;
}

void *LibplistFloor_parse(const uint8_t *bytes, size_t length) {
    static const char magic[] = "bplist";
    plist_t root = NULL;
    if (length >= 6 && memcmp(bytes, magic, 6) == 0) {
        plist_from_bin((const char *)bytes, (uint32_t)length, &root);
    } else {
        plist_from_xml((const char *)bytes, (uint32_t)length, &root);
    }
    return root;
}

LibplistFloor_Walk LibplistFloor_walk(void *tree) {
    Walk w = {0, 0, -1};
    if (!tree) return w;
    walk((plist_t)tree, &w);
    if (plist_get_node_type((plist_t)tree) == PLIST_DICT) {
        plist_t objects = plist_dict_get_item((plist_t)tree, "$objects");
        if (objects && plist_get_node_type(objects) == PLIST_ARRAY) w.objects = plist_array_get_size(objects);
    }
    return w;
}

size_t LibplistFloor_write(void *tree) {
    char *buffer = NULL;
    uint32_t length = 0;
    plist_to_bin((plist_t)tree, &buffer, &length);
    free_buffer(buffer);
    return length;
}

uint8_t *LibplistFloor_write_bytes(void *tree, size_t *length) {
    char *buffer = NULL;
    uint32_t written = 0;
    plist_to_bin((plist_t)tree, &buffer, &written);
    *length = buffer ? written : 0;
    return (uint8_t *)buffer;
}

void LibplistFloor_free_buffer(uint8_t *buffer) {
    if (buffer) free_buffer((char *)buffer);
}

void LibplistFloor_free(void *tree) {
    if (tree) plist_free((plist_t)tree);
}

const char *LibplistFloor_api_version(void) {
    return FLOOR_LIBPLIST_2_3_OR_LATER ? "2.3+" : "2.2";
}
