"""The bridge against a real mosquitto on loopback, started and stopped here, and a real host.

    PHOTOMETER_HOST=.build/debug/photometer-host PHOTOMETER_PLUGINS=plugins.json \\
        python3 -m unittest discover Examples/home-assistant
"""
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../clients/python"))

import paho.mqtt.client as mqtt  # noqa: E402
from photometer import Client  # noqa: E402

BRIDGE = os.path.join(HERE, "photometer_mqtt_bridge.py")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class BridgeTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        # A water meter whose reference photo is a rendered counter; the snapshots are counters.
        self.database = os.path.join(self.folder.name, "meters.sqlite")
        rendered = os.path.join(self.folder.name, "counters")
        subprocess.run([os.path.join(HERE, "../../Tools/make-digits.py"), rendered, "--kind", "wheels", "--count", "2",
                        "--seed", "23"], check=True, capture_output=True)
        with open(os.path.join(rendered, "labels.csv")) as file:
            rows = [line.strip().split(",") for line in file.readlines()[1:]]
        self.snapshots = [(os.path.join(rendered, row[0]), row[1]) for row in rows]
        with open(self.snapshots[0][0], "rb") as file:
            reference = file.read()
        with Client.launch(os.environ["PHOTOMETER_HOST"], "--db", self.database, "--plugins",
                           os.environ["PHOTOMETER_PLUGINS"]) as host:
            host.add_meter("Cold water", reference, kind="water", unit="m3")

        self.port = free_port()
        config = os.path.join(self.folder.name, "mosquitto.conf")
        with open(config, "w") as file:
            file.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        broker = subprocess.Popen(["mosquitto", "-c", config], stderr=subprocess.PIPE, text=True)
        self.addCleanup(broker.stderr.close)
        self.addCleanup(broker.wait, 30)
        # SIGKILL: a parent may have left SIGTERM blocked, and the mask is inherited.
        self.addCleanup(broker.kill)
        # The broker is up when it says it runs (after it opened its listener).
        for line in broker.stderr:
            if " running" in line:
                break
        self.messages = queue.Queue()
        subscriber = self.client("test-subscriber")
        self.addCleanup(subscriber.disconnect)
        self.addCleanup(subscriber.loop_stop)
        subscriber.on_message = lambda _client, _data, message: self.messages.put(
            (message.topic, message.payload.decode(), message.retain))
        subscribed = queue.Queue()
        subscriber.on_subscribe = lambda *_: subscribed.put(True)
        subscriber.subscribe([("homeassistant/#", 1), ("photometer/#", 1)])
        subscribed.get(timeout=30)

    def client(self, name):
        if hasattr(mqtt, "CallbackAPIVersion"):  # paho-mqtt 2
            client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
        else:
            client = mqtt.Client(client_id=name)
        client.connect("127.0.0.1", self.port)
        client.loop_start()
        return client

    def bridge(self, snapshot, *extra):
        return subprocess.run(
            [sys.executable, BRIDGE, "--meter", "Cold water", "--snapshot", snapshot, "--once", "--host",
             os.environ["PHOTOMETER_HOST"], "--db", self.database, "--plugins", os.environ["PHOTOMETER_PLUGINS"],
             "--mqtt-port", str(self.port), *extra], capture_output=True, text=True, timeout=120)

    def received_until_marker(self):
        """Every message that reached the subscriber before a marker published now: the bridge
        published at QoS 1 and waited for the broker before it exited."""
        marker = self.client("test-marker")
        marker.publish("photometer/marker", "end", qos=1).wait_for_publish(30)
        marker.loop_stop()
        marker.disconnect()
        received = []
        while (message := self.messages.get(timeout=30))[0] != "photometer/marker":
            received.append(message)
        return received

    def test_publishes_discovery_and_the_reading_then_skips_an_unsure_one(self):
        snapshot, truth = self.snapshots[1]
        run = self.bridge(snapshot)
        self.assertEqual(run.returncode, 0, run.stderr)
        messages = self.received_until_marker()
        topics = [topic for topic, _, _ in messages]
        self.assertEqual(topics, ["homeassistant/sensor/photometer_cold_water/config", "photometer/cold_water/state"])
        config = json.loads(messages[0][1])
        self.assertEqual(config["device_class"], "water")
        self.assertEqual(config["state_class"], "total_increasing")
        self.assertEqual(config["unit_of_measurement"], "m³")
        self.assertEqual(config["state_topic"], "photometer/cold_water/state")
        state = json.loads(messages[1][1])
        self.assertEqual(state["as_read"], truth)
        self.assertEqual(state["value"], float(truth))
        self.assertGreater(state["reading_id"], 0)

        # A reading under the confidence asked for is neither stored nor published.
        skipped = self.bridge(snapshot, "--min-confidence", "1.01")
        self.assertEqual(skipped.returncode, 1)
        self.assertIn("skipped", skipped.stderr)
        self.assertEqual([topic for topic, _, _ in self.received_until_marker()],
                         ["homeassistant/sensor/photometer_cold_water/config"])
        with Client.launch(os.environ["PHOTOMETER_HOST"], "--db", self.database, "--plugins",
                           os.environ["PHOTOMETER_PLUGINS"]) as host:
            self.assertEqual([reading.value for reading in host.readings("Cold water")], [truth])

    def test_an_unknown_meter_is_named(self):
        run = self.bridge(self.snapshots[0][0], "--meter", "Nope")
        self.assertEqual(run.returncode, 2)
        self.assertIn("no meter is named 'Nope'", run.stderr)


if __name__ == "__main__":
    unittest.main()
