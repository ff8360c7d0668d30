"""The Python client against a real photometer-host.

    PHOTOMETER_HOST=.build/debug/photometer-host python3 -m unittest discover clients/python/tests
"""
import os
import struct
import sys
import tempfile
import threading
import unittest
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from photometer import Client, HostClosed, PhotometerError, pb  # noqa: E402


def png(shade, width=64, height=48):
    """A grey PNG with a gradient, so that two shades are two different photos."""
    rows = b"".join(b"\x00" + bytes((shade + x) % 256 for x in range(width)) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class ClientTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        plugins = os.path.join(self.folder.name, "plugins.json")
        with open(plugins, "w") as file:
            file.write('{"plugins": []}')
        self.host = Client.launch(os.environ["PHOTOMETER_HOST"], "--plugins", plugins, "--db",
                                  os.path.join(self.folder.name, "meters.sqlite"))

    def tearDown(self):
        self.host.close()
        self.folder.cleanup()

    def test_shakes_hands(self):
        self.assertEqual(self.host.hello.name, "photometer-host")
        self.assertEqual(self.host.hello.protocol_major, 1)

    def test_requests_from_many_threads_each_get_their_own_reply(self):
        answers = {}

        def pings(thread):
            futures = {f"{thread}-{n}": self.host.submit(ping=pb.Ping(payload=f"{thread}-{n}".encode()))
                       for n in range(20)}
            for payload, future in futures.items():
                answers[payload] = future.result(30).payload.decode()
        threads = [threading.Thread(target=pings, args=(thread,)) for thread in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(len(answers), 100)
        self.assertTrue(all(sent == received for sent, received in answers.items()))

    def test_stores_meters_and_readings_and_raises_typed_errors(self):
        meter = self.host.add_meter("Water", png(10), kind="water", digits=7, decimals=2)
        self.assertEqual(meter.name, "Water")
        self.assertEqual([meter.name for meter in self.host.meters()], ["Water"])
        self.host.add_reading("Water", "9082.25", taken_at_ms=1_700_000_000_000)
        with self.assertRaises(PhotometerError) as refused:
            self.host.add_reading("Water", "9000", taken_at_ms=1_700_100_000_000)
        self.assertEqual(refused.exception.name, "invalid-request")
        self.assertIn("below the reading before it", refused.exception.message)
        self.host.add_reading("Water", "9000", taken_at_ms=1_700_100_000_000, force=True)
        stored = self.host.readings("Water")
        self.assertEqual([reading.value for reading in stored], ["9082.25", "9000"])
        self.assertEqual(self.host.reading(stored[0].id).value, "9082.25")
        with self.assertRaises(PhotometerError) as missing:
            self.host.readings("Gas")
        self.assertEqual(missing.exception.name, "not-found")
        with self.assertRaises(PhotometerError) as unread:
            self.host.read(png(10))
        self.assertEqual(unread.exception.name, "no-plugins")

    def test_a_closed_host_fails_new_requests(self):
        self.assertEqual(self.host.close(), 0)
        with self.assertRaises(HostClosed):
            self.host.ping(b"late")


if __name__ == "__main__":
    unittest.main()
