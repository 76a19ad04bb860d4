#!/usr/bin/env python3
"""Tests of scripts/autocoding_frames.py against the built tool, without Spark.

    python3 scripts/test_frames.py            # AUTOCODING_BIN=path, else .build/debug/autocoding
"""
import json
import os
import plistlib
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from autocoding_frames import decode_frames, encode_frame, run_batch_frames  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("AUTOCODING_BIN", os.path.join(ROOT, ".build", "debug", "autocoding"))


def archive(text: str) -> bytes:
    """A small keyed archive (an NSString root) made with plistlib."""
    return plistlib.dumps({
        "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
        "$objects": ["$null", text],
    }, fmt=plistlib.FMT_BINARY)


class FrameTests(unittest.TestCase):
    def test_layout(self):
        frame = encode_frame("é", b"xyz")
        self.assertEqual(frame, b"\x00\x00\x00\x02" + "é".encode() + b"\x00" * 7 + b"\x03" + b"xyz")
        self.assertEqual(list(decode_frames(frame + encode_frame("", b""))), [("é", b"xyz"), ("", b"")])
        with self.assertRaises(ValueError):
            encode_frame("x" * 4097, b"")
        with self.assertRaises(ValueError):
            list(decode_frames(frame[:-1]))

    @unittest.skipUnless(os.access(BIN, os.X_OK), f"no autocoding at {BIN}")
    def test_one_record_per_frame_in_order(self):
        items = [(f"blob-{i}", archive(f"text {i}")) for i in range(20)] + [("junk", b"not a plist")]
        lines = list(run_batch_frames([BIN, "batch", "--stdin-frames", "--quiet", "--jobs", "2"], items))
        records = [json.loads(line) for line in lines]
        self.assertEqual([r["id"] for r in records], [i for i, _ in items])
        self.assertTrue(all(r["ok"] and r["root_class"] == "NSString" for r in records[:20]))
        self.assertEqual(records[20]["error"]["code"], "notPropertyList")

    @unittest.skipUnless(os.access(BIN, os.X_OK), f"no autocoding at {BIN}")
    def test_truncated_stream_is_exit_2_after_earlier_records(self):
        good = encode_frame("a", archive("a"))
        bad = struct.pack(">I", 1) + b"b" + struct.pack(">Q", 50) + b"short"
        result = subprocess.run([BIN, "batch", "--stdin-frames", "-q"], input=good + bad, capture_output=True)
        self.assertEqual(result.returncode, 2)
        self.assertEqual([json.loads(l)["id"] for l in result.stdout.splitlines()], ["a"])
        self.assertIn(f"byte offset {len(good)}".encode(), result.stderr)


if __name__ == "__main__":
    unittest.main()
