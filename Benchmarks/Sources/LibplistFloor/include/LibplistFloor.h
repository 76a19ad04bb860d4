/*
 * LibplistFloor: libplist's C API as a C program uses it, the floor the engine's read and write are measured against.
 * Used by the ordo-one benchmarks and by the comparison runner (autocoding-bench), which links it instead of looking
 * libplist up at run time. Opaque handles keep plist_t out of Swift.
 */
#ifndef LIBPLISTFLOOR_H
#define LIBPLISTFLOOR_H

#include <stddef.h>
#include <stdint.h>

/* What a walk saw: nodes visited, a checksum of every value read (so that no read is optimized away), and the
 * length of the root's `$objects` array (-1 when the root has none). */
typedef struct {
    uint64_t nodes;
    uint64_t checksum;
    int64_t objects;
} LibplistFloor_Walk;

/* plist_from_bin + a walk of every node with libplist's iterators (each value read, strings and data by pointer,
 * keys not copied) + plist_free. Returns the nodes visited, 0 when libplist rejects the bytes. */
uint64_t LibplistFloor_read(const uint8_t *bytes, size_t length);

/* plist_from_bin, or plist_from_xml when the bytes do not start with "bplist"; NULL when libplist rejects them.
 * Free with LibplistFloor_free. */
void *LibplistFloor_parse(const uint8_t *bytes, size_t length);

/* The walk of LibplistFloor_read over a parsed tree, with the root's `$objects` count. */
LibplistFloor_Walk LibplistFloor_walk(void *tree);

/* plist_to_bin of a parsed tree; returns the output's length (the buffer is freed). */
size_t LibplistFloor_write(void *tree);

/* plist_to_bin of a parsed tree, the buffer kept: `*length` gets its length. Free with LibplistFloor_free_buffer;
 * NULL when libplist wrote nothing. */
uint8_t *LibplistFloor_write_bytes(void *tree, size_t *length);

/* Frees a buffer of LibplistFloor_write_bytes with the function of the libplist compiled against. */
void LibplistFloor_free_buffer(uint8_t *buffer);

void LibplistFloor_free(void *tree);

/* The libplist API this was compiled against, "2.2" or "2.3+", decided from the header (see LibplistFloor.c). */
const char *LibplistFloor_api_version(void);

#endif
