"""A client of photometer-host: starts it, shakes hands, and sends requests from any thread.

Each request gets the next request id and a future; one thread reads the host's replies and
completes the future of the id each reply names, so requests may be in flight together and their
replies may come in any order (docs/protocol.md). An error reply raises `PhotometerError`.
"""
import itertools
import subprocess
import threading
from concurrent.futures import Future

from . import frames
from . import photometer_pb2 as pb

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 6


class PhotometerError(Exception):
    """An error reply: `code` (a pb.ErrorCode value), its `name` ("not-found"), `message`, and the
    `plugin` that failed when one did."""

    def __init__(self, code, message, plugin=""):
        self.code = code
        self.name = pb.ErrorCode.Name(code).removeprefix("ERROR_CODE_").lower().replace("_", "-")
        self.message = message
        self.plugin = plugin
        super().__init__(f"{self.name}: {message}" + (f" (plugin {plugin})" if plugin else ""))


class HostClosed(ConnectionError):
    """The host's output ended (it exited or closed it) before the reply came."""


class Client:
    """A conversation with a photometer-host over two binary streams."""

    def __init__(self, replies, requests, process=None, name="photometer-python"):
        """Speaks over `replies` (the host's standard output) and `requests` (its standard input),
        and shakes hands as `name`. `process`, when given, is waited for by `close`."""
        self._replies = replies
        self._requests = requests
        self._process = process
        self._ids = itertools.count(1)
        self._pending = {}
        self._lock = threading.Lock()  # the pending futures and the closed state
        self._write_lock = threading.Lock()
        self._closed = None
        self._reader = threading.Thread(target=self._read_replies, name="photometer-replies", daemon=True)
        self._reader.start()
        self.hello = self.request(hello=pb.Hello(
            protocol_major=PROTOCOL_MAJOR, protocol_minor=PROTOCOL_MINOR, name=name, version="1.0.0"))

    @classmethod
    def launch(cls, host="photometer-host", *arguments, stderr=None, name="photometer-python"):
        """Starts `host` with `arguments` (e.g. "--db", path) and shakes hands with it."""
        process = subprocess.Popen([host, *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        return cls(process.stdout, process.stdin, process, name)

    def submit(self, **body):
        """Sends one request, given as its body (`read=pb.ReadRequest(...)`), and returns the
        future of its reply's body."""
        (kind, message), = body.items()
        future = Future()
        with self._lock:
            if self._closed is not None:
                raise self._closed
            request_id = next(self._ids)
            self._pending[request_id] = future
        envelope = pb.Envelope(request_id=request_id)
        getattr(envelope, kind).CopyFrom(message)
        frame = frames.encode(envelope)
        # Writing may block on a full pipe until the host reads; the reply thread must still be
        # able to take replies meanwhile, so writes have a lock of their own.
        with self._write_lock:
            self._requests.write(frame)
            self._requests.flush()
        return future

    def request(self, timeout=None, **body):
        """Sends one request and waits for its reply's body (see `submit`)."""
        return self.submit(**body).result(timeout)

    def _read_replies(self):
        failure = HostClosed("the host closed its output")
        try:
            while (payload := frames.read_frame(self._replies)) is not None:
                envelope = pb.Envelope()
                envelope.ParseFromString(payload)
                with self._lock:
                    future = self._pending.pop(envelope.request_id, None)
                if future is None:
                    continue  # A reply to nothing in flight (a cancelled request's late answer).
                kind = envelope.WhichOneof("body")
                if kind == "error":
                    error = envelope.error
                    future.set_exception(PhotometerError(error.code, error.message, error.plugin))
                else:
                    future.set_result(getattr(envelope, kind))
        except Exception as error:  # noqa: BLE001 - whatever broke the stream fails every request
            failure = HostClosed(f"the host's replies could not be read: {error}")
        with self._lock:
            self._closed = failure
            pending, self._pending = self._pending, {}
        for future in pending.values():
            future.set_exception(failure)

    # The requests a client makes most, as methods.

    def ping(self, payload=b""):
        return self.request(ping=pb.Ping(payload=payload)).payload

    def read(self, image, meter="", digits=0, decimals=0, save=False, roi=None, shadows=False):
        """Reads the photo `image` (JPEG or PNG bytes): a pb.ReadResult. `shadows`: the shadow
        engines read too and answer in the result (a saved reading keeps their answers anyway)."""
        request = pb.ReadRequest(image=pb.Image(data=image), meter=meter, digits=digits, decimals=decimals, save=save,
                                 shadows=shadows)
        if roi is not None:
            request.roi.CopyFrom(pb.Rect(x=roi[0], y=roi[1], width=roi[2], height=roi[3]))
        return self.request(read=request)

    def identify(self, image, references=()):
        """Which registered meter (or which of `references`, (meter, image bytes) pairs) `image` shows."""
        return self.request(identify=pb.IdentifyRequest(
            image=pb.Image(data=image),
            references=[pb.Reference(meter=meter, image=pb.Image(data=data)) for meter, data in references]))

    def add_meter(self, name, reference, kind="other", unit="", digits=0, decimals=0, counts_up=None):
        """Registers a meter with one reference photo; `kind` is water, gas, electricity, heat,
        glucose, thermometer, blood_pressure or other. A meter of the first four counts up unless
        `counts_up` says otherwise (as `photometer meter add`). Returns its pb.Meter."""
        if counts_up is None:
            counts_up = kind in ("water", "gas", "electricity", "heat")
        meter = pb.Meter(name=name, kind=pb.MeterKind.Value("METER_KIND_" + kind.upper()), unit=unit, digits=digits,
                         decimals=decimals, counts_up=counts_up)
        return self.request(add_meter=pb.AddMeter(meter=meter, references=[pb.Image(data=reference)])).meter

    def meters(self):
        return list(self.request(list_meters=pb.ListMeters()).meters)

    def meter(self, name):
        """The registered meter `name` (pb.Meter); PhotometerError "not-found" when there is none."""
        return self.request(get_meter=pb.GetMeter(name=name)).meter

    def add_reading(self, meter, value, taken_at_ms=None, force=False):
        """Stores a value typed by hand; a counting meter refuses one it cannot show unless `force`."""
        request = pb.AddReading(meter=meter, value=value, source=pb.READING_SOURCE_MANUAL, force=force)
        if taken_at_ms is not None:
            request.taken_at_ms = taken_at_ms
        return self.request(add_reading=request).reading

    def reading(self, reading_id, with_crop=False):
        """The stored reading `reading_id` (pb.StoredReading), its crop too when `with_crop`."""
        return self.request(get_reading=pb.GetReading(id=reading_id, with_crop=with_crop)).reading

    def readings(self, meter, limit=0):
        return list(self.request(list_readings=pb.ListReadings(meter=meter, limit=limit)).readings)

    def close(self, timeout=30):
        """Asks the host to finish what is in flight and exit; returns its exit status (None for
        streams without a process)."""
        try:
            self.request(timeout, shutdown=pb.Shutdown())
        except HostClosed:
            pass
        self._requests.close()
        status = self._process.wait(timeout) if self._process is not None else None
        self._reader.join(timeout)
        self._replies.close()
        return status

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()
