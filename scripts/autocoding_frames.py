"""The frame format of `autocoding batch --stdin-frames`, and a helper that pipes blobs through it.

A frame is: a 4-byte big-endian id length, the id (UTF-8, at most 4096 bytes), an 8-byte big-endian payload
length, and the payload (at most maxInputBytes, 1 GiB). `batch --stdin-frames` writes one NDJSON record per
frame, in order, with the frame's id as "id". See docs/SCALING.md.

Pure Python with no dependencies, so that Spark executors (or anything else that holds bytes) can use it.
"""
import struct
import subprocess
import threading
from typing import Iterable, Iterator, Tuple

MAX_ID_BYTES = 4096


def encode_frame(frame_id: str, payload: bytes) -> bytes:
    """One frame: id length, id, payload length, payload (integers big-endian)."""
    id_bytes = frame_id.encode("utf-8")
    if len(id_bytes) > MAX_ID_BYTES:
        raise ValueError(f"frame id of {len(id_bytes)} bytes is above {MAX_ID_BYTES}")
    return struct.pack(">I", len(id_bytes)) + id_bytes + struct.pack(">Q", len(payload)) + payload


def decode_frames(data: bytes) -> Iterator[Tuple[str, bytes]]:
    """The frames in `data` (the inverse of encode_frame, for tests); raises ValueError on a bad frame."""
    offset = 0
    while offset < len(data):
        start = offset
        if len(data) - offset < 4:
            raise ValueError(f"frame at byte offset {start}: truncated id length")
        (id_length,) = struct.unpack_from(">I", data, offset)
        offset += 4
        if id_length > MAX_ID_BYTES or len(data) - offset < id_length + 8:
            raise ValueError(f"frame at byte offset {start}: bad or truncated id")
        frame_id = data[offset:offset + id_length].decode("utf-8")
        offset += id_length
        (length,) = struct.unpack_from(">Q", data, offset)
        offset += 8
        if len(data) - offset < length:
            raise ValueError(f"frame at byte offset {start}: truncated payload")
        yield frame_id, data[offset:offset + length]
        offset += length


def run_batch_frames(command, items: Iterable[Tuple[str, bytes]]) -> Iterator[str]:
    """Pipes (id, bytes) pairs as frames through `command` (for example
    ["autocoding", "batch", "--stdin-frames", "--quiet", "--jobs", "1"]) and yields its NDJSON lines.

    The frames are written from a thread while the records are read, so neither side waits on a full pipe.
    Exit status 1 only means that some blobs did not decode (each is a record); 2 (a bad frame or a usage
    error) raises RuntimeError with the tool's message.
    """
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    failure = []

    def feed():
        try:
            for frame_id, payload in items:
                process.stdin.write(encode_frame(frame_id, payload))
        except BrokenPipeError:
            pass  # The tool stopped reading; its exit status and message say why.
        except Exception as error:  # noqa: BLE001 - reported after the records are read
            failure.append(error)
        finally:
            try:
                process.stdin.close()
            except BrokenPipeError:
                pass

    errors = []
    drain = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)
    drain.start()
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    for line in process.stdout:
        yield line.decode("utf-8").rstrip("\n")
    writer.join()
    status = process.wait()
    drain.join()
    process.stdout.close()
    process.stderr.close()
    if failure:
        raise failure[0]
    if status not in (0, 1):
        message = b"".join(errors).decode("utf-8", "replace").strip()
        raise RuntimeError(f"{' '.join(command)} exited with status {status}: {message}")
