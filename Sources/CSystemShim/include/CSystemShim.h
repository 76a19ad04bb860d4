#ifndef C_SYSTEM_SHIM_H
#define C_SYSTEM_SHIM_H

#include <stddef.h>

/// Grows the anonymous mapping at `address` from `old_size` to `new_size` bytes with Linux's `mremap`, moving it if
/// it cannot grow in place: its pages change place, not their contents, so nothing is copied and pages never
/// written stay unallocated. NULL when it fails, and always elsewhere than Linux (Swift's Glibc module does not
/// import `mremap`, declared only under `_GNU_SOURCE`, and variadic).
void *autocoding_remap(void *address, size_t old_size, size_t new_size);

#endif
