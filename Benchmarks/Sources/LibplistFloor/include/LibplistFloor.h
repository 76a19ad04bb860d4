/*
 * LibplistFloor: libplist's C API as a C program uses it, the floor the engine's read and write are measured against.
 * Opaque handles keep plist_t out of Swift.
 */
#ifndef LIBPLISTFLOOR_H
#define LIBPLISTFLOOR_H

#include <stddef.h>
#include <stdint.h>

/* plist_from_bin + a walk of every node with libplist's iterators (each value read, strings and data by pointer,
 * keys not copied) + plist_free. Returns the nodes visited, 0 when libplist rejects the bytes. */
uint64_t LibplistFloor_read(const uint8_t *bytes, size_t length);

/* plist_from_bin, kept for LibplistFloor_write; NULL on failure. Free with LibplistFloor_free. */
void *LibplistFloor_parse(const uint8_t *bytes, size_t length);

/* plist_to_bin of a parsed tree; returns the output's length (the buffer is freed). */
size_t LibplistFloor_write(void *tree);

void LibplistFloor_free(void *tree);

#endif
