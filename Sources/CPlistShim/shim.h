/*
 * CPlistShim: the only place that knows which libplist it is compiled against.
 *
 * libplist 2.3 changed its public API in ways that break callers at compile time: the parse and write
 * functions return plist_err_t instead of void, PLIST_UINT became a macro for the new PLIST_INT, memory
 * that libplist hands out is freed with plist_mem_free instead of free / plist_to_*_free, and the date API
 * moved to whole UNIX seconds (2.7). The static inline helpers below give Swift one API for 2.2 ... 2.7, so
 * no Swift file depends on the version.
 *
 * Version detection: in 2.2 PLIST_UINT is an enumerator of plist_type; from 2.3 on the enumerator is
 * PLIST_INT and `#define PLIST_UINT PLIST_INT` keeps old code compiling. The preprocessor only sees the
 * macro, so `#ifdef PLIST_UINT` is true exactly for 2.3+ (checked against the 2.2.0, 2.3.0, 2.4.0 and
 * 2.7.0 tags of include/plist/plist.h).
 *
 * Every helper uses public API only. libplist 2.2 has no public way to read an integer's signedness or a
 * date's exact value, so the 2.2 branches below get them through other public functions
 * (plist_compare_node_value, plist_to_bin, plist_from_bin) instead of mirroring private structs: that
 * costs a little speed on rare values and cannot break if a distribution patches the private layout.
 */
#ifndef CPLISTSHIM_H
#define CPLISTSHIM_H

#include <plist/plist.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef PLIST_UINT
#define CPLISTSHIM_LIBPLIST_2_3_OR_LATER 1
#else
#define CPLISTSHIM_LIBPLIST_2_3_OR_LATER 0
#endif

/* The kinds of node Swift distinguishes; PLIST_UINT/PLIST_INT and later additions (PLIST_NULL) map here. */
typedef enum __attribute__((enum_extensibility(closed))) CPlistShimKind {
    CPlistShimKindBoolean,
    CPlistShimKindInteger,
    CPlistShimKindReal,
    CPlistShimKindString,
    CPlistShimKindArray,
    CPlistShimKindDictionary,
    CPlistShimKindDate,
    CPlistShimKindData,
    CPlistShimKindKey,
    CPlistShimKindUid,
    /* PLIST_NONE, or a type newer than this shim (PLIST_NULL in 2.3+): not a property-list value here. */
    CPlistShimKindOther,
} CPlistShimKind;

/* Which version the shim was compiled against: 0 for 2.2, 1 for 2.3 or later (for tests and reports). */
static inline int CPlistShim_isLibplist2_3OrLater(void) {
    return CPLISTSHIM_LIBPLIST_2_3_OR_LATER;
}

/* The node's kind; a switch over plist_type written once, with no version-specific enumerator in Swift. */
static inline CPlistShimKind CPlistShim_nodeKind(plist_t node) {
    switch (plist_get_node_type(node)) {
    case PLIST_BOOLEAN: return CPlistShimKindBoolean;
    case PLIST_UINT: return CPlistShimKindInteger; /* PLIST_INT in 2.3+ */
    case PLIST_REAL: return CPlistShimKindReal;
    case PLIST_STRING: return CPlistShimKindString;
    case PLIST_ARRAY: return CPlistShimKindArray;
    case PLIST_DICT: return CPlistShimKindDictionary;
    case PLIST_DATE: return CPlistShimKindDate;
    case PLIST_DATA: return CPlistShimKindData;
    case PLIST_KEY: return CPlistShimKindKey;
    case PLIST_UID: return CPlistShimKindUid;
    default: return CPlistShimKindOther;
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * Parsing and writing. Each returns NULL / 0 on failure whatever the version reports.
 */

/* Parses a binary plist; NULL on failure. 2.2 leaves *plist untouched on failure, hence the NULL start. */
static inline plist_t CPlistShim_fromBinary(const char *bytes, uint32_t length) {
    plist_t node = NULL;
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    if (plist_from_bin(bytes, length, &node) != PLIST_ERR_SUCCESS) {
        if (node) plist_free(node);
        return NULL;
    }
#else
    plist_from_bin(bytes, length, &node);
#endif
    return node;
}

/* Parses an XML plist; NULL on failure. */
static inline plist_t CPlistShim_fromXML(const char *bytes, uint32_t length) {
    plist_t node = NULL;
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    if (plist_from_xml(bytes, length, &node) != PLIST_ERR_SUCCESS) {
        if (node) plist_free(node);
        return NULL;
    }
#else
    plist_from_xml(bytes, length, &node);
#endif
    return node;
}

/* Writes `node` as XML into a buffer to free with CPlistShim_freeXML; returns 1 on success, 0 on failure. */
static inline int CPlistShim_toXML(plist_t node, char **out, uint32_t *length) {
    *out = NULL;
    *length = 0;
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    if (plist_to_xml(node, out, length) != PLIST_ERR_SUCCESS) {
        if (*out) plist_mem_free(*out);
        *out = NULL;
        return 0;
    }
#else
    plist_to_xml(node, out, length);
#endif
    return *out != NULL;
}

/* Writes `node` as a binary plist into a buffer to free with CPlistShim_freeBinary; 1 on success. */
static inline int CPlistShim_toBinary(plist_t node, char **out, uint32_t *length) {
    *out = NULL; /* 2.2's plist_to_bin refuses to run unless *out is NULL */
    *length = 0;
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    if (plist_to_bin(node, out, length) != PLIST_ERR_SUCCESS) {
        if (*out) plist_mem_free(*out);
        *out = NULL;
        return 0;
    }
#else
    plist_to_bin(node, out, length);
#endif
    return *out != NULL;
}

/* ---------------------------------------------------------------------------------------------------------
 * Freeing what libplist allocates.
 */

/* Frees a buffer from CPlistShim_toXML. */
static inline void CPlistShim_freeXML(char *buffer) {
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    plist_mem_free(buffer);
#else
    plist_to_xml_free(buffer);
#endif
}

/* Frees a buffer from CPlistShim_toBinary. */
static inline void CPlistShim_freeBinary(char *buffer) {
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    plist_mem_free(buffer);
#else
    plist_to_bin_free(buffer);
#endif
}

/* Frees a string libplist returned (a dictionary key from plist_dict_next_item, plist_get_*_val). */
static inline void CPlistShim_freeString(char *string) {
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    plist_mem_free(string);
#else
    free(string);
#endif
}

/* Frees an array or dictionary iterator; every version documents "the standard free function". */
static inline void CPlistShim_freeIterator(void *iterator) {
    free(iterator);
}

/* ---------------------------------------------------------------------------------------------------------
 * Scalars whose API or storage differs between versions.
 *
 * libplist 2.2 stores every integer as a uint64_t plus a private `length`: 8 for values read from 1-8 byte
 * integers (negative numbers are their two's-complement bit pattern), 16 for values read from a 16-byte
 * bplist integer or an XML <integer> above INT64_MAX (src/bplist.c parse_uint_node, src/xplist.c
 * node_from_xml, tag 2.2.0). The writers print / encode length 16 as unsigned and length 8 as signed
 * (xplist.c node_to_xml: PRIu64 vs PRIi64; bplist.c plist_to_bin: write_uint vs write_int). 2.3+ keeps the
 * same storage and adds plist_int_val_is_negative / plist_new_int.
 *
 * A 16-byte bplist integer keeps only its low 8 bytes in every version (UINT_TO_HOST reads bytes 8..15),
 * so a sign-extended negative 16-byte integer reads as an unsigned value above INT64_MAX. CoreFoundation
 * writes negative numbers as 8-byte integers, so this only matters for hand-made files.
 */

/* The integer's 64 bits: the value of a signed integer as its bit pattern, or the unsigned value. */
static inline uint64_t CPlistShim_integerBits(plist_t node) {
    uint64_t value = 0;
    plist_get_uint_val(node, &value);
    return value;
}

/* 1 if the integer node holds an unsigned value above INT64_MAX, 0 if its bits are a signed int64_t. */
static inline int CPlistShim_integerIsUnsignedAboveInt64Max(plist_t node) {
    uint64_t value = CPlistShim_integerBits(node);
    if (value <= (uint64_t)INT64_MAX) return 0;
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    return !plist_int_val_is_negative(node);
#else
    /* 2.2 has no accessor for `length`, but plist_compare_node_value (plist_data_compare) compares type,
     * length and value. plist_new_uint always makes length 8, so an equal probe means length 8 (a negative
     * int64_t) and an unequal one means length 16 (unsigned). */
    plist_t probe = plist_new_uint(value);
    if (!probe) return 0;
    int sameAsSigned = plist_compare_node_value(node, probe) ? 1 : 0;
    plist_free(probe);
    return !sameAsSigned;
#endif
}

/* Parses a bplist holding exactly one scalar object (at most 17 bytes, marker included); NULL on failure.
 * Used to make nodes whose exact value the 2.2 constructors cannot express. */
static inline plist_t CPlistShim_parseSingleObject(const uint8_t *object, size_t objectLength) {
    uint8_t buffer[8 + 17 + 1 + 32];
    if (objectLength == 0 || objectLength > 17) return NULL;
    size_t tableOffset = 8 + objectLength;
    memcpy(buffer, "bplist00", 8);
    memcpy(buffer + 8, object, objectLength);
    buffer[tableOffset] = 8; /* offset table: object 0 starts right after the header */
    uint8_t *trailer = buffer + tableOffset + 1;
    memset(trailer, 0, 32);
    trailer[6] = 1;                      /* offset int size */
    trailer[7] = 1;                      /* object ref size */
    trailer[15] = 1;                     /* object count (big-endian uint64 at 8..15) */
    trailer[31] = (uint8_t)tableOffset;  /* offset table offset (big-endian uint64 at 24..31); top object 0 */
    return CPlistShim_fromBinary((const char *)buffer, (uint32_t)(tableOffset + 1 + 32));
}

/* A new integer node holding a signed value (written as a signed number in XML and binary). */
static inline plist_t CPlistShim_newSignedInteger(int64_t value) {
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    return plist_new_int(value);
#else
    /* 2.2: length 8, so the bit pattern is written as a signed (8-byte for negatives) integer. */
    return plist_new_uint((uint64_t)value);
#endif
}

/* A new integer node holding an unsigned value above INT64_MAX (written as unsigned / 16 bytes). */
static inline plist_t CPlistShim_newUnsignedInteger(uint64_t value) {
    if (value <= (uint64_t)INT64_MAX) return CPlistShim_newSignedInteger((int64_t)value);
#if CPLISTSHIM_LIBPLIST_2_3_OR_LATER
    return plist_new_uint(value); /* sets length 16 above INT_MAX */
#else
    /* 2.2's plist_new_uint always makes length 8 (printed signed); its bplist parser makes length 16 for a
     * 16-byte integer, so parse one: marker 0x14, eight zero bytes, then the value big-endian. */
    uint8_t object[17] = {0x14};
    for (int i = 0; i < 8; i++) object[9 + i] = (uint8_t)(value >> (56 - 8 * i));
    return CPlistShim_parseSingleObject(object, sizeof object);
#endif
}

/* Reads a date node's exact seconds since 2001-01-01 into *seconds; returns 1 on success.
 *
 * libplist stores dates as a double, but plist_get_date_val (2.2 ... 2.6, deprecated in 2.7) truncates it to
 * int32 seconds (undefined beyond 1933 ... 2069) plus microseconds with the sign lost, and 2.7's
 * plist_get_unix_date_val keeps whole seconds only. plist_to_bin writes the stored double unchanged
 * (marker 0x33 then 8 big-endian bytes), so serialize just this node and read it back. Dates are rare in
 * keyed archives (NSDate archives its time as a real), so the cost is acceptable. */
static inline int CPlistShim_dateSecondsSince2001(plist_t node, double *seconds) {
    char *buffer = NULL;
    uint32_t length = 0;
    if (!CPlistShim_toBinary(node, &buffer, &length)) return 0;
    int ok = 0;
    if (length >= 17 && (uint8_t)buffer[8] == 0x33) {
        uint64_t bits = 0;
        for (int i = 0; i < 8; i++) bits = (bits << 8) | (uint8_t)buffer[9 + i];
        memcpy(seconds, &bits, sizeof bits);
        ok = 1;
    }
    CPlistShim_freeBinary(buffer);
    return ok;
}

/* A new date node holding exactly `seconds` since 2001-01-01.
 *
 * plist_new_date takes int32 seconds plus microseconds (deprecated in 2.7; plist_new_unix_date is 2.7-only
 * and whole seconds), so parse a one-object bplist with the double instead: exact in every version. */
static inline plist_t CPlistShim_newDate(double seconds) {
    uint64_t bits = 0;
    memcpy(&bits, &seconds, sizeof bits);
    uint8_t object[9] = {0x33};
    for (int i = 0; i < 8; i++) object[1 + i] = (uint8_t)(bits >> (56 - 8 * i));
    return CPlistShim_parseSingleObject(object, sizeof object);
}

#endif /* CPLISTSHIM_H */
