/*
 * System calls that Swift's Glibc module does not import, for the engine's growable buffers
 * (Sources/AutoCodingFast/Internal/AnonymousMemory.swift). A header of its own in this module, beside
 * libplist's shim.h, so that every build of the engine (SwiftPM, and the scripts that compile it with swiftc
 * and `-I Sources/CPlistShim`) finds it without another target.
 */
#ifndef CPLISTSHIM_SYSTEM_H
#define CPLISTSHIM_SYSTEM_H

#include <stddef.h>

#ifdef __linux__
/* glibc declares mremap only under _GNU_SOURCE, and variadic (its fifth argument is for MREMAP_FIXED), which
 * Swift cannot call: declared here as glibc does, and called through the wrapper below. */
extern void *mremap(void *address, size_t old_size, size_t new_size, int flags, ...);
#endif

/* Grows the anonymous mapping at `address` from `old_size` to `new_size` bytes with Linux's mremap, moving it
 * if it cannot grow in place (MREMAP_MAYMOVE, 1): its pages change place, not their contents, so nothing is
 * copied and pages never written stay unallocated. NULL when it fails, and always elsewhere than Linux. */
static inline void *CPlistShim_remap(void *address, size_t old_size, size_t new_size) {
#ifdef __linux__
    void *moved = mremap(address, old_size, new_size, 1);
    return moved == (void *)-1 ? NULL : moved;
#else
    (void)address;
    (void)old_size;
    (void)new_size;
    return NULL;
#endif
}

#endif /* CPLISTSHIM_SYSTEM_H */
