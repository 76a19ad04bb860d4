#!/usr/bin/env python3
"""Regenerates the small plistlib-made fixtures of Tests/AutoCodingFastTests/Fixtures/.

Usage: python3 scripts/make-fixtures.py [OUTDIR]

The output is deterministic: every value is a literal below, dictionaries keep insertion order
(sort_keys=False), and plistlib's binary writer numbers objects in a fixed order. Running the script twice
gives byte-identical files, so a diff after a rerun means the script changed.

Naming:
  keyed-*.bplist / keyed-*.xml   NSKeyedArchiver-shaped archives ($archiver, $version, $top, $objects)
  plain-*.bplist / plain-*.xml   ordinary property lists (no archive structure)

The tests in KeyedArchiveReadingTests assert the exact values written here; keep the two in step.
"""

import datetime
import os
import plistlib
import struct
import sys
from plistlib import UID

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "Tests", "AutoCodingFastTests", "Fixtures")

# The reference date of CoreFoundation: bplist dates are seconds since then.
CF_EPOCH = datetime.datetime(2001, 1, 1)


def archive(objects, top=None, archiver="NSKeyedArchiver", version=100000):
    """An NSKeyedArchiver-shaped dictionary in CoreFoundation's usual key order."""
    return {
        "$version": version,
        "$archiver": archiver,
        "$top": top if top is not None else {"root": UID(1)},
        "$objects": objects,
    }


def descriptor(*chain):
    """A class descriptor: $classname, then the $classes chain, most derived first."""
    return {"$classname": chain[0], "$classes": list(chain)}


# --------------------------------------------------------------------------------------------------------
# Keyed archives
# --------------------------------------------------------------------------------------------------------

def person_graph():
    """Alice and Bob are married (a UID cycle 1 -> 3 -> 1) and share one Address object (UID 4).

    Alice's friends array holds Bob and Carol; Carol is an AC.Employee (a three-level class chain).
    """
    return archive([
        "$null",                                                       # 0
        {"$class": UID(6), "name": UID(2), "age": 30,                  # 1 Alice
         "spouse": UID(3), "home": UID(4), "friends": UID(9)},
        "Alice",                                                       # 2
        {"$class": UID(6), "name": UID(8), "age": 31,                  # 3 Bob: spouse is Alice (cycle)
         "spouse": UID(1), "home": UID(4), "friends": UID(0)},
        {"$class": UID(7), "street": UID(5), "number": 12},            # 4 the shared Address
        "1 Infinite Loop",                                             # 5
        descriptor("AC.Person", "NSObject"),                           # 6
        descriptor("AC.Address", "NSObject"),                          # 7
        "Bob",                                                         # 8
        {"$class": UID(10), "NS.objects": [UID(3), UID(11)]},          # 9 Alice's friends
        descriptor("NSArray", "NSObject"),                             # 10
        {"$class": UID(13), "name": UID(12), "age": 42,                # 11 Carol
         "spouse": UID(0), "home": UID(4), "friends": UID(0), "employer": UID(14)},
        "Carol",                                                       # 12
        descriptor("AC.Employee", "AC.Person", "NSObject"),            # 13
        "Initech",                                                     # 14
    ])


def top_multiple_roots():
    """$top with `root` and the `$0..$n` keys NSKeyedArchiver writes for encode(_:) without a key."""
    return archive([
        "$null",                                                       # 0
        {"$class": UID(2), "NS.string": UID(3)},                       # 1
        descriptor("NSMutableString", "NSString", "NSObject"),         # 2
        "first root",                                                  # 3
        "second",                                                      # 4
        17,                                                            # 5
    ], top={"root": UID(1), "$0": UID(4), "$1": UID(5), "$2": True})


def top_non_root_key():
    """The only $top key is not `root` (as bpylist2's no_root fixture and DTX messages have)."""
    return archive([
        "$null",                                                       # 0
        {"$class": UID(2), "value": UID(3)},                           # 1
        descriptor("AC.Payload", "NSObject"),                          # 2
        "payload string",                                              # 3
    ], top={"payload": UID(1)})


def nested_uid_containers():
    """UIDs nested inside arrays and dictionaries that are themselves inside one object's fields."""
    return archive([
        "$null",                                                       # 0
        {"$class": UID(2),                                             # 1
         "matrix": [[UID(3), UID(4)], [UID(5)], []],
         "lookup": {"a": UID(3), "b": {"c": UID(4), "d": [UID(5), UID(0)]}},
         "mixed": [1, "two", UID(3), {"k": UID(4)}, [[[UID(5)]]]]},
        descriptor("AC.Container", "NSObject"),                        # 2
        "three",                                                       # 3
        "four",                                                        # 4
        "five",                                                        # 5
    ])


def nsdictionary():
    """An NSDictionary: parallel NS.keys and NS.objects arrays of UIDs."""
    return archive([
        "$null",                                                       # 0
        {"$class": UID(8), "NS.keys": [UID(2), UID(3), UID(4)],        # 1
         "NS.objects": [UID(5), UID(6), UID(7)]},
        "name",                                                        # 2
        "count",                                                       # 3
        "ratio",                                                       # 4
        "widget",                                                      # 5
        3,                                                             # 6
        0.25,                                                          # 7
        descriptor("NSDictionary", "NSObject"),                        # 8
    ])


def nsdate():
    """An NSDate (NS.time, seconds since 2001-01-01) and an array of two more."""
    return archive([
        "$null",                                                       # 0
        {"$class": UID(4), "NS.objects": [UID(2), UID(3)]},            # 1
        {"$class": UID(5), "NS.time": 700000000.5},                    # 2
        {"$class": UID(5), "NS.time": -978307200.0},                   # 3 1970-01-01
        descriptor("NSArray", "NSObject"),                             # 4
        descriptor("NSDate", "NSObject"),                              # 5
    ])


def nsdata():
    """NSData (NS.data), an empty one, and a 300-byte one (length integer after the 0x4F marker)."""
    return archive([
        "$null",                                                       # 0
        {"$class": UID(5), "NS.objects": [UID(2), UID(3), UID(4)]},    # 1
        {"$class": UID(6), "NS.data": bytes([0xDE, 0xAD, 0xBE, 0xEF])},  # 2
        {"$class": UID(6), "NS.data": b""},                            # 3
        {"$class": UID(6), "NS.data": bytes(i % 256 for i in range(300))},  # 4
        descriptor("NSArray", "NSObject"),                             # 5
        descriptor("NSData", "NSObject"),                              # 6
    ])


UNICODE_STRINGS = [
    "",                       # empty
    "plain ASCII",            # 0x5_ marker
    "café",                   # Latin-1, still UTF-16 in a bplist
    "日本語テキスト",            # BMP CJK
    "👍🏽",                    # emoji + skin-tone modifier: two surrogate pairs
    "𝄞 clef",                 # U+1D11E, a surrogate pair followed by ASCII
    "e\u0301",                # decomposed é (distinct bytes from "é")
    "\ufeffBOM-led",          # a leading U+FEFF stays part of the string
    "x" * 20,                 # ASCII with a length integer (>= 15)
    "é" * 20,                 # UTF-16 with a length integer
]


def unicode_strings():
    objects = ["$null", {"$class": UID(2), "NS.objects": [UID(3 + i) for i in range(len(UNICODE_STRINGS))]},
               descriptor("NSArray", "NSObject")]
    objects.extend(UNICODE_STRINGS)
    return archive(objects)


# Integers written with 1, 2, 4, 8 and 16 bytes (plistlib picks the smallest; negatives take 8, values
# above Int64.max take 16).
INTEGERS = [
    0, 255,                                  # 1 byte
    256, 65535,                              # 2 bytes
    65536, 2**32 - 1,                        # 4 bytes
    2**32, 2**63 - 1, -1, -(2**63),          # 8 bytes
    2**63, 2**64 - 1,                        # 16 bytes
]


def integers():
    objects = ["$null", {"$class": UID(2), "NS.objects": [UID(3 + i) for i in range(len(INTEGERS))]},
               descriptor("NSArray", "NSObject")]
    objects.extend(INTEGERS)
    return archive(objects)


# plistlib uniques floats by value, so 0.0 and -0.0 would share one object: only -0.0 is here.
REALS = [1.5, -0.0, 3.141592653589793, 1e308, 5e-324, float("inf"), float("-inf")]


def reals_and_bools():
    objects = ["$null", {"$class": UID(2), "reals": [UID(3 + i) for i in range(len(REALS))],
                         "yes": True, "no": False},
               descriptor("AC.Numbers", "NSObject")]
    objects.extend(REALS)
    return archive(objects)


def xml_keyed_archive():
    """What CF writes for an XML keyed archive: UIDs as {CF$UID: n} dictionaries, keys sorted."""
    def cfuid(n):
        return {"CF$UID": n}
    return {
        "$archiver": "NSKeyedArchiver",
        "$objects": [
            "$null",                                                   # 0
            {"$class": cfuid(4), "NS.keys": [cfuid(2)], "NS.objects": [cfuid(3)]},  # 1
            "greeting",                                                # 2
            "héllo wörld",                                             # 3
            {"$classes": ["NSDictionary", "NSObject"], "$classname": "NSDictionary"},  # 4
        ],
        "$top": {"root": cfuid(1)},
        "$version": 100000,
    }


# --------------------------------------------------------------------------------------------------------
# Plain property lists
# --------------------------------------------------------------------------------------------------------

def plain_dict():
    return {
        "string": "hello",
        "unicode": "grüße 🌍",
        "int": 42,
        "negative": -42,
        "big": 2**64 - 1,
        "real": 2.5,
        "true": True,
        "false": False,
        "date": CF_EPOCH + datetime.timedelta(seconds=86400),
        "data": b"\x00\x01\x02\xff",
        "array": [1, 2, 3],
        "nested": {"inner": {"deeper": ["x"]}},
        "empty array": [],
        "empty dict": {},
    }


def plain_array():
    shared = ["shared", "container"]   # one Python list used twice: plistlib writes it once (a shared reference)
    return [
        list(range(20)),               # 20 elements: marker 0xAF then a length integer
        shared,
        shared,
        ["a", ["b", ["c", ["d"]]]],
        "z" * 15,
    ]


def plain_scalars():
    """One file per scalar type at the root."""
    return {
        "plain-scalar-true.bplist": True,
        "plain-scalar-false.bplist": False,
        "plain-scalar-int.bplist": 123456,
        "plain-scalar-negative-int.bplist": -9,
        "plain-scalar-uint64-max.bplist": 2**64 - 1,
        "plain-scalar-real.bplist": 0.1,
        "plain-scalar-date.bplist": CF_EPOCH + datetime.timedelta(seconds=700000000),
        "plain-scalar-data.bplist": b"bytes\x00\x80",
        "plain-scalar-ascii-string.bplist": "ascii",
        "plain-scalar-utf16-string.bplist": "ünïcödé",
        "plain-scalar-empty-string.bplist": "",
        "plain-scalar-uid.bplist": UID(7),
    }


def float32_root():
    """A 4-byte real (marker 0x22), which plistlib never writes: 1.5f, built by hand."""
    body = b"bplist00" + b"\x22" + struct.pack(">f", 1.5)       # object 0 at offset 8
    offset_table = bytes([8])
    trailer = bytes(6) + bytes([1, 1]) + struct.pack(">QQQ", 1, 0, len(body))
    return body + offset_table + trailer


# --------------------------------------------------------------------------------------------------------

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_OUT
    os.makedirs(out, exist_ok=True)

    binary = {
        "keyed-person-graph.bplist": person_graph(),
        "keyed-top-multiple-roots.bplist": top_multiple_roots(),
        "keyed-top-non-root-key.bplist": top_non_root_key(),
        "keyed-nested-uid-containers.bplist": nested_uid_containers(),
        "keyed-nsdictionary.bplist": nsdictionary(),
        "keyed-nsdate.bplist": nsdate(),
        "keyed-nsdata.bplist": nsdata(),
        "keyed-unicode-strings.bplist": unicode_strings(),
        "keyed-integers.bplist": integers(),
        "keyed-reals-bools.bplist": reals_and_bools(),
        "plain-dict.bplist": plain_dict(),
        "plain-array.bplist": plain_array(),
    }
    binary.update(plain_scalars())
    xml = {
        "keyed-cfuid.xml": xml_keyed_archive(),
        "plain-dict.xml": plain_dict(),
    }

    written = []
    for name, value in binary.items():
        data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False)
        written.append((name, data))
    for name, value in xml.items():
        data = plistlib.dumps(value, fmt=plistlib.FMT_XML, sort_keys=False)
        written.append((name, data))
    written.append(("plain-scalar-float32.bplist", float32_root()))

    for name, data in sorted(written):
        # Every fixture must load back in plistlib (the hand-built one included).
        plistlib.loads(data)
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print(f"{len(data):6d}  {name}")


if __name__ == "__main__":
    main()
