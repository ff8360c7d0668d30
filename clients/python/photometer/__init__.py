"""Photometer's protocol in Python: framing (`frames`), the messages (`pb`, generated from
Sources/Protocol/photometer.proto by Tools/generate-protocol) and a client of photometer-host
(`Client`). Needs Google's protobuf package (Debian: python3-protobuf).

    import sys; sys.path.insert(0, "PATH/TO/clients/python")
    from photometer import Client
    with Client.launch("photometer-host", "--db", "meters.sqlite") as host:
        print(host.read(open("meter.jpg", "rb").read()).value)
"""
from . import frames
from . import photometer_pb2 as pb
from .client import Client, HostClosed, PhotometerError

__all__ = ["Client", "HostClosed", "PhotometerError", "frames", "pb"]
